#ifndef ROQUA_CPROJ_SHIM_H
#define ROQUA_CPROJ_SHIM_H
// PROJ's C API (proj.h): contexts, CRS objects and transformations. Roqua uses it only behind
// RoquaProjection, one context per `Reprojection`, with the network turned off.
#include <proj.h>
#endif
