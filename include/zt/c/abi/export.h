/* ZT_C_EXPORT marks the functions and variables of libzerotrace_c's ABI.
 *
 * The library is built with every other symbol hidden (and a version script
 * as a second fence); its own sources define ZT_C_IMPLEMENTATION so that
 * these declarations are the exported ones. Users need nothing: on ELF an
 * imported symbol needs no annotation.
 *
 * C99 and C++. */
#ifndef ZT_C_ABI_EXPORT_H_
#define ZT_C_ABI_EXPORT_H_

#if defined(ZT_C_IMPLEMENTATION)
#define ZT_C_EXPORT __attribute__((visibility("default")))
#else
#define ZT_C_EXPORT
#endif

#endif /* ZT_C_ABI_EXPORT_H_ */
