/* What Tern's OpenSHMEM offers, told to shmem4py (the Python bindings, built
 * with cffi over any OpenSHMEM library). shmem4py recognizes the library by
 * vendor macros of the implementations it knows (Open MPI, OSHMPI, Cray,
 * OSSS, Sandia) and, for any other, supplies static fallbacks for the
 * routines it assumes missing, which then clash with shmem.h's declarations
 * of the same routines. Built with this header forced in, it uses Tern's:
 *   OSHCC="oshcc -include tshmem/shmem4py.h" pip install shmem4py
 * (docs/shmem.md, "Python: shmem4py"). Each macro says that shmem.h
 * declares the routines or types named; nothing else in Tern reads them. */
#ifndef TSHMEM_SHMEM4PY_H
#define TSHMEM_SHMEM4PY_H

#define PySHMEM_HAVE_shmem_malloc_with_hints 1
#define PySHMEM_HAVE_shmem_team_t            1
#define PySHMEM_HAVE_SHMEM_CTX_INVALID       1
#define PySHMEM_HAVE_shmem_amo_nbi           1
#define PySHMEM_HAVE_shmem_put_signal        1
#define PySHMEM_HAVE_shmem_signal_fetch      1
#define PySHMEM_HAVE_shmem_signal_wait_until 1
#define PySHMEM_HAVE_shmem_broadcast         1
#define PySHMEM_HAVE_shmem_collect           1
#define PySHMEM_HAVE_shmem_fcollect          1
#define PySHMEM_HAVE_shmem_alltoall          1
#define PySHMEM_HAVE_shmem_alltoalls         1
#define PySHMEM_HAVE_shmem_broadcastmem      1
#define PySHMEM_HAVE_shmem_collectmem        1
#define PySHMEM_HAVE_shmem_fcollectmem       1
#define PySHMEM_HAVE_shmem_alltoallmem       1
#define PySHMEM_HAVE_shmem_alltoallsmem      1
#define PySHMEM_HAVE_shmem_reduce            1
#define PySHMEM_HAVE_shmem_wait_test_many    1
#define PySHMEM_HAVE_shmem_pcontrol          1

#endif
