/* profile.h: tuned profiles, files of methods per bin (private; doc/devices.md:
 * Tuning). */
#ifndef HSP_PROFILE_H
#define HSP_PROFILE_H

#include <stddef.h>
#include "spgemm/engine.h"

/* out gets the methods of the profile that o names for dev, whose bins are
 * bins: none where the options name none or the user has no profile file,
 * and none for a group whose method o names.  A file that cannot be read or
 * does not parse, or names a method the device cannot run, is an error. */
hsp_status hsp_profile_load(const hsp_options *o, const hsp_device *dev, const hsp_bins *bins, hsp_profile *out);

/* Write the section of precision dbl (1: double) for the device described
 * desc (its device line, then the lines of section) to the profile file
 * option names, in place of the file's section of both if it has one; the
 * file's other lines are kept.  path (len bytes) gets the file's name. */
hsp_status hsp_profile_write(const char *option, int dbl, const char *desc, const char *section, char *path,
                             size_t len);

#endif
