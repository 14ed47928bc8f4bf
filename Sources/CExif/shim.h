#ifndef ROQUA_CEXIF_SHIM_H
#define ROQUA_CEXIF_SHIM_H

#include <libexif/exif-data.h>
#include <libexif/exif-content.h>
#include <libexif/exif-entry.h>
#include <libexif/exif-ifd.h>
#include <libexif/exif-tag.h>
#include <libexif/exif-utils.h>

/* ExifData.ifd is a C array (a tuple in Swift): index it here. */
static inline ExifContent *roqua_exif_ifd(ExifData *data, int ifd) {
    if (!data || ifd < 0 || ifd >= EXIF_IFD_COUNT) return 0;
    return data->ifd[ifd];
}

/* Looks a tag up by its raw number inside one IFD (GPS tag numbers overlap others). */
static inline ExifEntry *roqua_exif_entry(ExifData *data, int ifd, unsigned int tag) {
    ExifContent *content = roqua_exif_ifd(data, ifd);
    if (!content) return 0;
    return exif_content_get_entry(content, (ExifTag)tag);
}

#endif
