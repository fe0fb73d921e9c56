/* <mpp/shmem.h>: the header path of SGI SHMEM, which the OpenSHMEM 1.6
 * specification keeps (deprecated, Annex "Header Directory: mpp"): every
 * OpenSHMEM header must also be reachable under mpp/. Same as <shmem.h>. */
#include <shmem.h>
