import CZip

/// A ZIP archive read through libzip: its entries listed, any one streamed (decompressed, or
/// raw for a cheap content checksum). Not thread-safe: one archive per reader. A class because
/// it owns the libzip handle; entry sources keep it alive while they are read.
package final class ZipArchive {
    package let path: String
    private let handle: OpaquePointer

    /// One file in the archive (directories are not listed).
    package struct Entry: Sendable, Equatable {
        package var index: UInt64
        package var name: String
        /// Uncompressed size in bytes.
        package var size: UInt64
    }

    /// - Throws: `InputError` naming the file when it cannot be opened or is not a ZIP archive.
    package init(path: String) throws(InputError) {
        self.path = path
        var code: Int32 = 0
        guard let handle = zip_open(path, ZIP_RDONLY, &code) else {
            var error = zip_error_t()
            zip_error_init_with_code(&error, code)
            defer { zip_error_fini(&error) }
            throw InputError(file: path, line: nil, message: "cannot read as a ZIP archive: \(String(cString: zip_error_strerror(&error)))")
        }
        self.handle = handle
    }

    deinit {
        zip_discard(handle)
    }

    /// The archive's files in directory order.
    package func entries() throws(InputError) -> [Entry] {
        let count = zip_get_num_entries(handle, 0)
        guard count >= 0 else { throw InputError(file: path, line: nil, message: "cannot list the ZIP archive") }
        var entries: [Entry] = []
        for index in 0..<UInt64(count) {
            var info = zip_stat_t()
            guard zip_stat_index(handle, index, 0, &info) == 0, let cName = info.name else {
                throw InputError(file: path, line: nil, message: "cannot read entry \(index) of the ZIP archive: \(lastError())")
            }
            let name = String(cString: cName)
            if name.hasSuffix("/") { continue }
            entries.append(Entry(index: index, name: name, size: info.size))
        }
        return entries
    }

    /// The entry's bytes, decompressed (`raw: false`) or as stored (`raw: true`).
    package func open(_ entry: Entry, raw: Bool = false) throws(InputError) -> ZipEntrySource {
        guard let file = zip_fopen_index(handle, entry.index, raw ? zip_flags_t(ZIP_FL_COMPRESSED) : 0) else {
            throw InputError(file: "\(path):\(entry.name)", line: nil, message: "cannot open in the ZIP archive: \(lastError())")
        }
        return ZipEntrySource(archive: self, file: file)
    }

    private func lastError() -> String {
        String(cString: zip_strerror(handle))
    }
}

/// One archive entry being read.
package final class ZipEntrySource: ByteSource {
    private let archive: ZipArchive
    private let file: OpaquePointer

    fileprivate init(archive: ZipArchive, file: OpaquePointer) {
        self.archive = archive
        self.file = file
    }

    deinit {
        zip_fclose(file)
    }

    package func read(into buffer: UnsafeMutableRawBufferPointer, name: String) throws(InputError) -> Int {
        guard let base = buffer.baseAddress, buffer.count > 0 else { return 0 }
        let n = zip_fread(file, base, zip_uint64_t(buffer.count))
        guard n >= 0 else {
            throw InputError(file: name, line: nil, message: "cannot read from the ZIP archive: \(String(cString: zip_file_strerror(file)))")
        }
        return Int(n)
    }
}
