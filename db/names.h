/* Kernel names: CUPTI reports the mangled name; sessions also store the
 * demangled name and the short name nsys shows ("conv2d_fwd", made by
 * src/core/names.h). */
#ifndef SMTOP_DB_NAMES_H
#define SMTOP_DB_NAMES_H

/* The demangled name, malloc'd; a copy of name when it is not a mangled C++
 * name or no demangler is loaded (__cxa_demangle is found with dlsym, so C
 * programs without libstdc++ get names as they are).  NULL only on ENOMEM. */
char *db_names_demangle(const char *name);

#endif
