import CLoaded

/// A ZIP archive read through libzip: its entries listed, any one streamed (decompressed, or
/// raw for a cheap content checksum). Not thread-safe: one archive per reader. A class because
/// it owns the libzip handle; entry sources keep it alive while they are read.
package final class ZipArchive {
    /// libzip's functions, looked up when the first archive is opened (CLoaded's shim says why
    /// libzip is not linked), or why they cannot be.
    private static let library: Result<RoquaZip, Unavailable> = withUnsafeTemporaryAllocation(of: RoquaZip.self, capacity: 1) { slot in
        guard let missing = roqua_zip_load(slot.baseAddress!).map({ String(cString: $0) }) else { return .success(slot[0]) }
        return .failure(
            Unavailable(
                reason: missing.isEmpty
                    ? "the libzip library (libzip.so.4) is not installed: apt-get install libzip4"
                    : "the installed libzip has no \(missing) (libzip 1.2 or later is needed)"))
    }

    private struct Unavailable: Error {
        let reason: String
    }

    package let path: String
    fileprivate let zip: RoquaZip
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
        let zip: RoquaZip
        switch Self.library {
        case .success(let loaded): zip = loaded
        case .failure(let error): throw InputError(file: path, line: nil, message: "cannot read as a ZIP archive: " + error.reason)
        }
        self.path = path
        self.zip = zip
        var code: Int32 = 0
        guard let handle = zip.open(path, ZIP_RDONLY, &code) else {
            var error = zip_error_t()
            zip.error_init_with_code(&error, code)
            defer { zip.error_fini(&error) }
            throw InputError(file: path, line: nil, message: "cannot read as a ZIP archive: \(ZipArchive.text(zip.error_strerror(&error)))")
        }
        self.handle = handle
    }

    deinit {
        zip.discard(handle)
    }

    /// The archive's files in directory order.
    package func entries() throws(InputError) -> [Entry] {
        let count = zip.get_num_entries(handle, 0)
        guard count >= 0 else { throw InputError(file: path, line: nil, message: "cannot list the ZIP archive") }
        var entries: [Entry] = []
        for index in 0..<UInt64(count) {
            var info = zip_stat_t()
            guard zip.stat_index(handle, index, 0, &info) == 0, let cName = info.name else {
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
        guard let file = zip.fopen_index(handle, entry.index, raw ? zip_flags_t(ZIP_FL_COMPRESSED) : 0) else {
            throw InputError(file: "\(path):\(entry.name)", line: nil, message: "cannot open in the ZIP archive: \(lastError())")
        }
        return ZipEntrySource(archive: self, file: file)
    }

    /// libzip's message (never NULL by its documentation; said so if it were).
    fileprivate static func text(_ message: UnsafePointer<CChar>?) -> String {
        message.map { String(cString: $0) } ?? "no reason given"
    }

    private func lastError() -> String {
        ZipArchive.text(zip.strerror(handle))
    }
}

/// One archive entry being read.
package final class ZipEntrySource: ByteSource {
    private let archive: ZipArchive
    private let file: OpaquePointer
    private var zip: RoquaZip { archive.zip }

    fileprivate init(archive: ZipArchive, file: OpaquePointer) {
        self.archive = archive
        self.file = file
    }

    deinit {
        _ = zip.fclose(file)
    }

    package func read(into buffer: UnsafeMutableRawBufferPointer, name: String) throws(InputError) -> Int {
        guard let base = buffer.baseAddress, buffer.count > 0 else { return 0 }
        let n = zip.fread(file, base, zip_uint64_t(buffer.count))
        guard n >= 0 else {
            throw InputError(
                file: name, line: nil, message: "cannot read from the ZIP archive: \(ZipArchive.text(zip.file_strerror(file)))")
        }
        return Int(n)
    }
}
