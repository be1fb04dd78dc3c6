/* Lesson texts (src/core/lessons.c): one per demo scenario, found from a
 * session's recorded command line. */
#include <criterion/criterion.h>
#include <criterion/parameterized.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "db/reader.h"
#include "src/core/lessons.h"

/* The scenario names in smtop-demo's own table (kernels/smtop-demo_main.cu),
 * so a new scenario without a lesson fails here. */
static size_t demo_scenarios(char names[][64], size_t max)
{
	FILE *f = fopen("kernels/smtop-demo_main.cu", "r");
	cr_assert_not_null(f, "run from the repository root");
	char line[512];
	size_t n = 0;
	int in_table = 0;
	while (fgets(line, sizeof line, f) && n < max) {
		if (strstr(line, "static const struct scenario scenarios[]"))
			in_table = 1;
		else if (in_table && line[0] == '}')
			break;
		char name[64];
		if (in_table && sscanf(line, " {\"%63[^\"]\", sc_", name) == 1)
			strcpy(names[n++], name);
	}
	fclose(f);
	return n;
}

Test(lessons, every_demo_scenario_has_a_lesson)
{
	char names[32][64];
	size_t n = demo_scenarios(names, 32);
	cr_assert_geq(n, 7, "smtop-demo lists its scenarios");
	for (size_t i = 0; i < n; i++) {
		const struct lesson *l = lessons_find(names[i]);
		cr_expect_not_null(l, "no lesson for %s", names[i]);
		if (!l)
			continue;
		cr_expect(l->title && *l->title && l->did && *l->did && l->finding && *l->finding &&
			  l->look && *l->look && l->next && *l->next, "%s: every part written", names[i]);
	}
	cr_expect_eq(lessons_count(), n, "no lesson for a scenario that does not exist");
}

Test(lessons, texts_are_ascii_so_they_wrap_by_bytes)
{
	for (size_t i = 0; i < lessons_count(); i++) {
		const struct lesson *l = lessons_at(i);
		const char *parts[] = { l->title, l->did, l->finding, l->look, l->next };
		for (size_t p = 0; p < 5; p++)
			for (const char *c = parts[p]; *c; c++)
				cr_expect((unsigned char)*c < 128, "%s: part %zu", l->scenario, p);
	}
}

struct command_case {
	char command[96];
	char scenario[32];              /* "" = no lesson */
};

ParameterizedTestParameters(lessons, scenario_from_the_command_line)
{
	static struct command_case cases[] = {
		{ "build/smtop-demo priority-vs-training --seconds 3", "priority-vs-training" },
		{ "/opt/smtop/bin/smtop-demo head-of-line --seconds 30", "head-of-line" },
		{ "smtop-demo   timeslice", "timeslice" },
		{ "smtop-demo mps", "mps" },
		{ "smtop-demo", "" },
		{ "smtop-demo --list", "" },
		{ "smtop-demo no-such-scenario", "" },
		{ "build/smtop-demox placement", "" },
		{ "python3 train.py placement", "" },
		{ "", "" },
	};
	return cr_make_param_array(struct command_case, cases, sizeof cases / sizeof cases[0]);
}

ParameterizedTest(struct command_case *c, lessons, scenario_from_the_command_line)
{
	const struct lesson *l = lessons_for_command(c->command);
	if (!c->scenario[0]) {
		cr_expect_null(l, "'%s'", c->command);
		return;
	}
	cr_assert_not_null(l, "'%s'", c->command);
	cr_expect_str_eq(l->scenario, c->scenario);
}

Test(lessons, no_command_no_lesson)
{
	cr_expect_null(lessons_for_command(NULL));
	cr_expect_null(lessons_find(NULL));
}

/* The sessions recorded from smtop-demo know their scenario. */
Test(lessons, recorded_sessions_find_their_lesson)
{
	static const char *const fixtures[] = { "priority-vs-training", "equal-priority",
						"head-of-line" };
	for (size_t i = 0; i < 3; i++) {
		char path[128], err[256];
		snprintf(path, sizeof path, "tests/fixtures/%s.smtop", fixtures[i]);
		struct db_reader *r;
		struct db_session_info info;
		cr_assert_eq(db_reader_open(&r, path, err, sizeof err), 0, "%s", err);
		cr_assert_eq(db_reader_info(r, &info), 0);
		const struct lesson *l = lessons_for_command(info.command);
		cr_expect_not_null(l, "%s: '%s'", path, info.command);
		if (l)
			cr_expect_str_eq(l->scenario, fixtures[i]);
		db_reader_close(r);
	}
	struct db_reader *r;
	struct db_session_info info;
	char err[256];
	cr_assert_eq(db_reader_open(&r, "tests/fixtures/resnet50-two-streams.smtop", err, sizeof err), 0);
	db_reader_info(r, &info);
	cr_expect_null(lessons_for_command(info.command), "a PyTorch run is no demo");
	db_reader_close(r);
}

Test(lessons, every_stop_kind_has_a_caption)
{
	for (int k = 0; k < GUIDE_KIND_COUNT; k++) {
		for (int e = SMTOP_EV_BLOCKING; e <= SMTOP_EV_TIMESLICE; e++) {
			cr_expect(*lessons_stop_title((enum guide_kind)k, (enum smtop_event_kind)e));
			cr_expect(*lessons_stop_text((enum guide_kind)k, (enum smtop_event_kind)e));
		}
	}
	cr_expect(strstr(lessons_stop_text(GUIDE_FIRST_INVERSION, SMTOP_EV_INVERSION_RESIDENT),
			 "preempt") != NULL, "a resident inversion is about preemption");
	cr_expect_str_eq(lessons_stop_title(GUIDE_OTHER_INVERSION, SMTOP_EV_INVERSION_DISPATCH),
			 "First dispatch inversion");
}
