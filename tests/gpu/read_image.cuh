/* A module's image (a fatbin) read whole, for the GPU test programs that
 * load modules through the driver: empty when it cannot be read. */
#ifndef SMTOP_TESTS_READ_IMAGE_CUH
#define SMTOP_TESTS_READ_IMAGE_CUH

#include <cstdio>
#include <vector>

static std::vector<char> read_image(const char *path)
{
	std::vector<char> image;
	FILE *f = fopen(path, "rb");
	char buf[65536];
	size_t n;

	if (!f)
		return image;
	while ((n = fread(buf, 1, sizeof buf, f)) > 0)
		image.insert(image.end(), buf, buf + n);
	fclose(f);
	return image;
}

#endif
