#include "src/core/names.h"

#include <stdlib.h>
#include <string.h>

/* ---- demangled names: "void ns::conv2d_fwd<3>(float const*, int)" ---- */

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

static char *names_short_demangled(const char *s)
{
	size_t len = strlen(s);
	size_t end = strip_template(s, params_start(s, len));
	size_t from = last_component(s, end);

	if (from >= end)
		return strdup(s);
	return strndup(s + from, end - from);
}

/* ---- mangled names (Itanium ABI): "_ZN3foo3barIiE3bazEv" ---- */

/* Reads a <source-name> (length, then that many characters) at *p. */
static int names_source_name(const char **p, const char **name, size_t *len)
{
	char *end;
	unsigned long n = strtoul(*p, &end, 10);

	if (end == *p || n == 0 || strnlen(end, n) < n)
		return -1;
	*name = end;
	*len = n;
	*p = end + n;
	return 0;
}

/* Skips a template argument list "I...E", nested lists, nested names and
 * literals included, and the source names inside it by their lengths (they
 * may hold an I or an E).  NULL when it does not close. */
static const char *names_skip_template_args(const char *p)
{
	int depth = 0;

	while (*p) {
		if (*p >= '1' && *p <= '9') {
			const char *n;
			size_t len;
			if (names_source_name(&p, &n, &len) != 0)
				return NULL;
			continue;
		}
		if (*p == 'I' || *p == 'N' || *p == 'L' || *p == 'X')
			depth++;
		else if (*p == 'E' && --depth == 0)
			return p + 1;
		p++;
	}
	return NULL;
}

/* The last component of a nested name N...E, template arguments skipped:
 * foo::bar<int>::baz -> baz. */
static char *names_short_mangled(const char *name)
{
	const char *p = name + 2, *last = NULL;
	size_t lastlen = 0;

	if (*p != 'N') {
		if (names_source_name(&p, &last, &lastlen) != 0)
			return strdup(name);
		return strndup(last, lastlen);
	}
	p++;
	while (*p && *p != 'E') {
		if (*p == 'I') {
			if (!(p = names_skip_template_args(p)))
				break;
			continue;
		}
		if (*p == 'K' || *p == 'V' || *p == 'r') { /* cv-qualifiers of a member function */
			p++;
			continue;
		}
		if (*p < '1' || *p > '9' || names_source_name(&p, &last, &lastlen) != 0)
			break; /* a constructor, an operator, a substitution: keep what we have */
	}
	return last ? strndup(last, lastlen) : strdup(name);
}

char *names_short(const char *name)
{
	if (!name)
		return strdup("?");
	if (name[0] == '_' && name[1] == 'Z')
		return names_short_mangled(name);
	return names_short_demangled(name);
}
