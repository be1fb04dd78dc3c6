#include "db/checkpoint.h"
#include "src/core/threads.h"

#include <pthread.h>
#include <stdlib.h>

/* SQLite's own default (sqlite3.h does not name it) */
#define CHECKPOINT_SQLITE_DEFAULT 1000

struct db_checkpoint {
	sqlite3 *writer_db, *db;
	pthread_t thread;
	pthread_mutex_t lock;
	pthread_cond_t wake;
	int frames, writer_frames;
	int due, stop;
};

/* After each of the writer's commits, with the WAL's frame count. */
static int checkpoint_hook(void *arg, sqlite3 *db, const char *name, int frames)
{
	struct db_checkpoint *c = arg;

	if (frames >= c->writer_frames) {
		sqlite3_wal_checkpoint_v2(db, name, SQLITE_CHECKPOINT_PASSIVE, NULL, NULL);
		return SQLITE_OK;
	}
	if (frames >= c->frames) {
		pthread_mutex_lock(&c->lock);
		c->due = 1;
		pthread_cond_signal(&c->wake);
		pthread_mutex_unlock(&c->lock);
	}
	return SQLITE_OK;
}

static void *checkpoint_main(void *arg)
{
	struct db_checkpoint *c = arg;

	pthread_mutex_lock(&c->lock);
	while (!c->stop) {
		if (!c->due) {
			pthread_cond_wait(&c->wake, &c->lock);
			continue;
		}
		c->due = 0;
		pthread_mutex_unlock(&c->lock);
		sqlite3_wal_checkpoint_v2(c->db, NULL, SQLITE_CHECKPOINT_PASSIVE, NULL, NULL);
		pthread_mutex_lock(&c->lock);
	}
	pthread_mutex_unlock(&c->lock);
	return NULL;
}

struct db_checkpoint *db_checkpoint_start(sqlite3 *writer_db, const char *path, int frames, int writer_frames)
{
	struct db_checkpoint *c = calloc(1, sizeof(*c));
	if (!c)
		return NULL;
	c->writer_db = writer_db;
	c->frames = frames;
	c->writer_frames = writer_frames;
	if (sqlite3_open_v2(path, &c->db, SQLITE_OPEN_READWRITE | SQLITE_OPEN_NOMUTEX, NULL) != SQLITE_OK ||
	    sqlite3_exec(c->db, "PRAGMA synchronous=NORMAL", NULL, NULL, NULL) != SQLITE_OK) {
		sqlite3_close(c->db);
		free(c);
		return NULL;
	}
	sqlite3_busy_timeout(c->db, 1000);
	pthread_mutex_init(&c->lock, NULL);
	pthread_cond_init(&c->wake, NULL);
	/* signals belong to the threads of whoever writes (a workload's):
	 * thread_start blocks them in the new thread */
	if (thread_start(&c->thread, "smtop-checkpt", checkpoint_main, c) != 0) {
		sqlite3_close(c->db);
		free(c);
		return NULL;
	}
	sqlite3_wal_autocheckpoint(writer_db, 0);
	sqlite3_wal_hook(writer_db, checkpoint_hook, c);
	return c;
}

void db_checkpoint_stop(struct db_checkpoint *c)
{
	if (!c)
		return;
	/* the hook goes first: the writer's commits come from this thread */
	sqlite3_wal_autocheckpoint(c->writer_db, CHECKPOINT_SQLITE_DEFAULT);
	pthread_mutex_lock(&c->lock);
	c->stop = 1;
	pthread_cond_signal(&c->wake);
	pthread_mutex_unlock(&c->lock);
	pthread_join(c->thread, NULL);
	sqlite3_close(c->db);
	pthread_mutex_destroy(&c->lock);
	pthread_cond_destroy(&c->wake);
	free(c);
}
