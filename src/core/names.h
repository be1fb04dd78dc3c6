/* The one kernel-name shortener: the bare function name that the screen,
 * the report and the export all show ("conv2d_fwd"), from a mangled name as
 * CUPTI gives it or a demangled one as sessions store it.  Pure. */
#ifndef SMTOP_CORE_NAMES_H
#define SMTOP_CORE_NAMES_H

/* No return type, parameter list, template arguments or namespaces:
 * "conv2d_fwd" for "void ns::conv2d_fwd<3>(float const*, int)" and for
 * "_ZN2ns10conv2d_fwdILi3EEEvPKfi"; "baz" for foo::bar<int>::baz()
 * ("_ZN3foo3barIiE3bazEv").  A name it cannot read comes back whole.
 * malloc'd; NULL only on ENOMEM. */
char *names_short(const char *name);

#endif
