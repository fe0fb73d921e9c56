/* Symbol visibility for the public API: libtern exports only these. */
#ifndef TERN_API_H
#define TERN_API_H
#if defined(__GNUC__)
#define TERN_API __attribute__((visibility("default")))
#else
#define TERN_API
#endif
#endif
