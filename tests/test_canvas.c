/* The canvas: cells, clipping, UTF-8, boxes, text and ANSI dumps. */
#include <criterion/criterion.h>
#include <stdlib.h>
#include <string.h>

#include "ui/canvas.h"

static struct canvas c;

static void setup(void)
{
	cr_assert_eq(canvas_init(&c, 10, 3), 0);
}

static void teardown(void)
{
	canvas_free(&c);
}

TestSuite(canvas, .init = setup, .fini = teardown);

static void expect_dump(const char *want)
{
	char *s = canvas_dump_text_str(&c);
	cr_expect_str_eq(s, want);
	free(s);
}

Test(canvas, blank_dump_is_empty_lines)
{
	expect_dump("\n\n\n");
}

Test(canvas, print_clips_at_edge_and_width)
{
	cr_expect_eq(canvas_print(&c, 7, 0, -1, 0, 0, 0, "abcdef"), 3);
	cr_expect_eq(canvas_print(&c, 0, 1, 2, 0, 0, 0, "xyz"), 2);
	canvas_print(&c, -2, 2, -1, 0, 0, 0, "12345");
	expect_dump("       abc\nxy\n345\n");
}

Test(canvas, utf8_one_cell_per_code_point)
{
	canvas_print(&c, 0, 0, -1, 0, 0, 0, "a·░█▀b");
	cr_expect_str_eq(canvas_cell(&c, 1, 0)->glyph, "·");
	cr_expect_str_eq(canvas_cell(&c, 4, 0)->glyph, "▀");
	cr_expect_eq(canvas_utf8_width("a·░█▀b"), 6);
	expect_dump("a·░█▀b\n\n\n");
}

Test(canvas, put_outside_is_ignored)
{
	canvas_put(&c, 10, 0, "x", 0, 0, 0);
	canvas_put(&c, 0, 3, "x", 0, 0, 0);
	canvas_put(&c, -1, -1, "x", 0, 0, 0);
	cr_expect_null(canvas_cell(&c, 10, 0));
	expect_dump("\n\n\n");
}

Test(canvas, control_characters_replaced)
{
	canvas_print(&c, 0, 0, -1, 0, 0, 0, "a\tb");
	expect_dump("a?b\n\n\n");
}

Test(canvas, box_ascii_and_unicode)
{
	canvas_box(&c, (struct canvas_rect){ 0, 0, 10, 3 }, "t", 1);
	expect_dump("+ t -----+\n|        |\n+--------+\n");
	canvas_box(&c, (struct canvas_rect){ 0, 0, 10, 3 }, NULL, 0);
	cr_expect_str_eq(canvas_cell(&c, 0, 0)->glyph, "┌");
}

Test(canvas, resize_clears)
{
	canvas_print(&c, 0, 0, -1, 0, 0, 0, "abc");
	cr_assert_eq(canvas_resize(&c, 4, 1), 0);
	expect_dump("\n");
	cr_expect_eq(canvas_resize(&c, -1, 1), -1);
}

Test(canvas, ansi_dump_has_colours)
{
	canvas_put(&c, 0, 0, "A", CANVAS_BLUE, CANVAS_DEFAULT, CANVAS_BOLD);
	canvas_put(&c, 1, 0, "!", CANVAS_WHITE, CANVAS_RED, 0);
	canvas_put(&c, 2, 0, "x", CANVAS_BRIGHT + CANVAS_GREEN, CANVAS_DEFAULT, 0);
	char *buf = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&buf, &len);
	canvas_dump_ansi(&c, f);
	fclose(f);
	cr_expect(strstr(buf, "\033[0;1;34mA") != NULL, "%s", buf);
	cr_expect(strstr(buf, "\033[0;37;41m!") != NULL);
	cr_expect(strstr(buf, "\033[0;92mx") != NULL);
	free(buf);
}

Test(canvas, styles_dump_names_each_style_once)
{
	canvas_put(&c, 1, 0, "A", CANVAS_BLUE, CANVAS_DEFAULT, CANVAS_BOLD);
	canvas_put(&c, 2, 0, "!", CANVAS_WHITE, CANVAS_RED, CANVAS_BOLD);
	canvas_put(&c, 3, 0, "B", CANVAS_BLUE, CANVAS_DEFAULT, CANVAS_BOLD);
	canvas_put(&c, 0, 2, "x", CANVAS_BRIGHT + CANVAS_GREEN, CANVAS_DEFAULT,
		   CANVAS_DIM | CANVAS_REVERSE | CANVAS_UNDERLINE);
	char *s = canvas_dump_styles_str(&c);
	cr_expect_str_eq(s, ".aba\n"
			    "\n"
			    "c\n"
			    "key:\n"
			    "  . default on default\n"
			    "  a blue on default, bold\n"
			    "  b white on red, bold\n"
			    "  c bright green on default, dim, reverse, underline\n");
	free(s);
}
