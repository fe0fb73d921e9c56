/* <mpp/shmemx.h>: the SGI header path of <shmemx.h> (specification 1.6,
 * Annex "Header Directory: mpp"). Same as <shmemx.h>. */
#include <shmemx.h>
