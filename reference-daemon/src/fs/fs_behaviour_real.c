/* SPDX-License-Identifier: Apache-2.0 */
/* The real daemon's fs/ behaviour: its own operations (see fs_behaviour.h). */
#include "fs/fs_behaviour.h"

const struct fs_behaviour *const fs_behaviour = &fs_real;
