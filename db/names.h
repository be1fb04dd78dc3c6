/* Kernel names: CUPTI reports the mangled name; sessions also store the
 * demangled name and the short name nsys shows ("conv2d_fwd"). */
#ifndef SMTOP_DB_NAMES_H
#define SMTOP_DB_NAMES_H

/* The demangled name, malloc'd; a copy of name when it is not a mangled C++
 * name or no demangler is loaded (__cxa_demangle is found with dlsym, so C
 * programs without libstdc++ get names as they are).  NULL only on ENOMEM. */
char *db_names_demangle(const char *name);

/* The bare function name of a demangled name, malloc'd: no return type,
 * parameter list, template arguments or namespaces, e.g. "conv2d_fwd" for
 * "void ns::conv2d_fwd<3>(float const*, int)".  NULL only on ENOMEM. */
char *db_names_short(const char *demangled);

#endif
