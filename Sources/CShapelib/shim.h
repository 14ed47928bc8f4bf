#ifndef ROQUA_CSHAPELIB_SHIM_H
#define ROQUA_CSHAPELIB_SHIM_H
#include <shapefil.h>
#endif
