#include "src/core/json.h"

#include <inttypes.h>

void json_write_str(FILE *out, const char *s)
{
	if (!s) {
		fputs("null", out);
		return;
	}
	fputc('"', out);
	for (const unsigned char *p = (const unsigned char *)s; *p; p++) {
		if (*p == '"' || *p == '\\')
			fprintf(out, "\\%c", *p);
		else if (*p < 0x20)
			fprintf(out, "\\u%04x", *p);
		else
			fputc(*p, out);
	}
	fputc('"', out);
}

void json_write_drops(FILE *out, int known, uint64_t blocks, uint64_t cupti, uint64_t ring)
{
	if (!known) {
		fputs("\"dropped\": null", out);
		return;
	}
	fprintf(out, "\"dropped\": {\"blocks\": %" PRIu64 ", \"cupti\": %" PRIu64 ", \"ring\": %" PRIu64 "}", blocks,
		cupti, ring);
}
