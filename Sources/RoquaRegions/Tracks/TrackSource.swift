import Foundation
import RoquaIO

/// One track to read: a file, a gzip-compressed file, or a file inside a ZIP archive (itself
/// possibly gzip-compressed, as in a Strava bulk export). Each can be opened more than once
/// (format detection, then reading); an archive is opened once and shared by its entries.
public final class TrackSource {
    /// What messages call it: the path, or `archive.zip:inner/path`.
    public let name: String
    /// What the history calls its fixes' source: the file's name (`day.gpx`), its path inside the
    /// directory walked (`2024/05/day.gpx`) or the archive (`export.zip:activities/1.fit`), or
    /// `live/phone (owntracks)` — never where on this machine it was.
    public let historyName: String
    /// The file on disk (the archive, for an entry).
    public let file: String
    /// Whether the bytes are gzip-compressed (by content, not by name).
    public let gzip: Bool
    /// Found by walking a directory or an archive rather than named by the user: a file that
    /// turns out not to be a track is skipped rather than failed.
    public let foundByWalking: Bool
    private let archive: ZipArchive?
    private let entry: ZipArchive.Entry?

    /// A file on disk, named by the user (`foundByWalking: false`) or found in a directory.
    /// - Throws: `TrackReadError` when it cannot be opened.
    public convenience init(file: String, foundByWalking: Bool = false, historyName: String? = nil) throws {
        // A track is read more than once (its format, its checksum, its fixes): a pipe cannot be.
        guard file != "-" else {
            throw TrackReadError(file: file, line: nil, message: "tracks cannot be read from standard input: save it to a file first")
        }
        let magic = try ByteStream(path: file).lookahead(2)
        self.init(
            name: file, file: file, gzip: magic == Self.gzipMagic, foundByWalking: foundByWalking, archive: nil, entry: nil,
            historyName: historyName ?? (file as NSString).lastPathComponent)
    }

    /// A file on disk that messages and the import record call `name` (positions posted live,
    /// spooled to a private file: `live/phone (owntracks)`).
    /// - Throws: `TrackReadError` when it cannot be opened.
    package convenience init(file: String, name: String) throws {
        let magic = try ByteStream(path: file).lookahead(2)
        self.init(name: name, file: file, gzip: magic == Self.gzipMagic, foundByWalking: false, archive: nil, entry: nil, historyName: name)
    }

    init(name: String, file: String, gzip: Bool, foundByWalking: Bool, archive: ZipArchive?, entry: ZipArchive.Entry?, historyName: String)
    {
        self.name = name
        self.historyName = historyName
        self.file = file
        self.gzip = gzip
        self.foundByWalking = foundByWalking
        self.archive = archive
        self.entry = entry
    }

    static let gzipMagic: [UInt8] = [0x1F, 0x8B]

    /// A fresh stream over the (decompressed) content.
    package func open() throws(InputError) -> ByteStream {
        var source: any ByteSource
        var size: Int?
        if let archive, let entry {
            source = try archive.open(entry)
            size = gzip ? nil : Int(clamping: entry.size)
        } else {
            let file = try FileSource(path: file)
            source = file
            size = gzip ? nil : file.size
        }
        if gzip { source = try GzipSource(inner: source, name: name) }
        return try ByteStream(source: source, name: name, totalBytes: size)
    }

    /// How many bytes the content expands to, counted by decompressing it without keeping
    /// anything (about 1 GB/s for the highly compressible data of a decompression bomb), or nil
    /// as soon as it passes `limit`. A plain file's size is known without reading it. Data that
    /// cannot be opened or is corrupt ends the count where it breaks: reading it again (to
    /// import it) stops at the same place, so whatever it holds is counted. `check` runs every
    /// 8 MiB and may throw to stop (a server shutting down).
    /// - Throws: what `check` throws.
    package func expandedSize(upTo limit: Int, check: () throws -> Void = {}) throws -> Int? {
        if !gzip, entry == nil, let size = try? FileSource(path: file).size { return size <= limit ? size : nil }
        // An archive's declared size is the archive's word only: counted all the same.
        if !gzip, let entry, entry.size > UInt64(limit) { return nil }
        let buffer = UnsafeMutableRawBufferPointer.allocate(byteCount: 1 << 20, alignment: 1)
        defer { buffer.deallocate() }
        var total = 0
        do {
            var source: any ByteSource =
                try archive.flatMap { archive in try entry.map { try archive.open($0) } }
                ?? FileSource(path: file)
            if gzip { source = try GzipSource(inner: source, name: name) }
            while true {
                let n = try source.read(into: buffer, name: name)
                if n == 0 { return total }
                total += n
                if total > limit { return nil }
                if total & ((8 << 20) - 1) < n { try check() }
            }
        } catch is InputError {
            return total
        }
    }

    /// The file whose SHA-256 `checksum` is, when it is a whole file of its own: then it can be
    /// computed beside a reader of the source (an archive's entries share the archive, which one
    /// thread at a time may read).
    var checksummedFile: String? { archive == nil ? file : nil }

    /// The content's SHA-256 as stored (the compressed bytes of a `.gz` file or an archive
    /// entry): the identity that makes a re-import add nothing.
    package func checksum() throws -> String {
        guard let archive, let entry else { return try SHA256.hex(ofFile: file) }
        let raw = try archive.open(entry, raw: true)
        var hasher = SHA256()
        let buffer = UnsafeMutableRawBufferPointer.allocate(byteCount: 1 << 20, alignment: 1)
        defer { buffer.deallocate() }
        while true {
            let n = try raw.read(into: buffer, name: name)
            if n == 0 { break }
            hasher.update(UnsafeRawBufferPointer(rebasing: buffer[..<n]))
        }
        return hasher.finalize()
    }
}
