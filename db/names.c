#include "db/names.h"

#include <dlfcn.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

typedef char *(*cxa_demangle_fn)(const char *, char *, size_t *, int *);

/* libstdc++ is already loaded in every CUDA process; elsewhere (smtop itself,
 * tests) it is loaded once here if present on the system. */
static cxa_demangle_fn names_demangler(void)
{
	static cxa_demangle_fn fn;
	static int looked;

	if (!looked) {
		void *lib;

		looked = 1;
		fn = (cxa_demangle_fn)(uintptr_t)dlsym(RTLD_DEFAULT, "__cxa_demangle");
		if (!fn && (lib = dlopen("libstdc++.so.6", RTLD_LAZY | RTLD_LOCAL)))
			fn = (cxa_demangle_fn)(uintptr_t)dlsym(lib, "__cxa_demangle");
	}
	return fn;
}

char *db_names_demangle(const char *name)
{
	cxa_demangle_fn fn;
	char *out;
	int status = -1;

	if (strncmp(name, "_Z", 2) == 0 && (fn = names_demangler())) {
		out = fn(name, NULL, NULL, &status);
		if (out && status == 0)
			return out;
		free(out);
	}
	return strdup(name);
}

static const char anon_ns[] = "(anonymous namespace)";

/* Index of the '(' opening the parameter list, or len if there is none. */
static size_t params_start(const char *s, size_t len)
{
	int depth = 0;

	for (size_t i = 0; i < len; i++) {
		if (s[i] == '<') {
			depth++;
		} else if (s[i] == '>' && depth > 0) {
			depth--;
		} else if (s[i] == '(' && depth == 0) {
			if (strncmp(s + i, anon_ns, sizeof anon_ns - 1) == 0)
				i += sizeof anon_ns - 2;
			else if (!(i >= 8 && strncmp(s + i - 8, "operator", 8) == 0))
				return i;
		}
	}
	return len;
}

/* Drops a trailing <...> group from s[0, end). */
static size_t strip_template(const char *s, size_t end)
{
	int depth = 0;

	if (end == 0 || s[end - 1] != '>')
		return end;
	for (size_t i = end; i-- > 0;) {
		if (s[i] == '>')
			depth++;
		else if (s[i] == '<' && --depth == 0)
			return i;
	}
	return end;
}

/* Start of the last name component of s[0, end): after the return type's
 * space and the last "::" outside template arguments. */
static size_t last_component(const char *s, size_t end)
{
	size_t from = 0;
	int depth = 0;

	for (size_t i = 0; i < end; i++) {
		if (s[i] == '<')
			depth++;
		else if (s[i] == '>' && depth > 0)
			depth--;
		else if (depth == 0 && s[i] == ' ')
			from = i + 1;
		else if (depth == 0 && s[i] == ':' && i + 1 < end && s[i + 1] == ':')
			from = i + 2;
	}
	return from;
}

char *db_names_short(const char *demangled)
{
	size_t len = strlen(demangled);
	size_t end = strip_template(demangled, params_start(demangled, len));
	size_t from = last_component(demangled, end);

	if (from >= end)
		return strdup(demangled);
	return strndup(demangled + from, end - from);
}
