import Foundation
import RoquaIO
import RoquaPhotos

/// What a path given to `track import` turned into.
public enum TrackInput {
    /// A track to import.
    case source(TrackSource)
    /// A path that could not be opened, walked or unpacked (a failure of the import).
    case failed(path: String, error: any Error)
    /// Files passed over while walking a directory or archive because their names are not those
    /// of track files or photos (a Strava `activities.csv` is still read: its name says CSV).
    case skipped(path: String, count: Int)
    /// The photos (and Takeout sidecars) of a folder, or one photo named: each a fix at most.
    case photos(PhotoBatch)
}

/// A photo and its Google Takeout sidecar (`IMG_1.jpg.supplemental-metadata.json`), either of
/// them possibly missing.
public struct PhotoFile: Sendable, Equatable {
    public var photo: String?
    public var sidecar: String?
    /// What the history calls it: the photo's path inside the folder named, never its content.
    public var historyName: String

    public init(photo: String? = nil, sidecar: String? = nil, historyName: String) {
        (self.photo, self.sidecar, self.historyName) = (photo, sidecar, historyName)
    }
}

/// The photos found under one path the user named, imported together.
public struct PhotoBatch: Sendable, Equatable {
    /// The path named.
    public var name: String
    public var files: [PhotoFile]
}

/// Paths → the tracks in them: files as they are, directories walked (sorted, hidden entries
/// left out), ZIP archives (`.zip`, `.kmz`, or any file that is one) opened and their track
/// files listed. Nothing is read beyond the archive directories.
public enum TrackInputs {
    /// Names of files worth reading when walking (a `.gz` suffix is looked through).
    public static let trackExtensions: Set<String> = ["gpx", "kml", "tcx", "fit", "geojson", "json", "csv", "tsv", "rec"]
    public static let archiveExtensions: Set<String> = ["zip", "kmz"]

    /// What a file picker should offer: every track and archive name above, `.gz` of any of
    /// them, and `.txt` (a CSV is recognised by its content whatever its name), as `.ext` sorted.
    public static var pickerExtensions: [String] {
        trackExtensions.union(archiveExtensions).union(["gz", "txt"]).sorted().map { "." + $0 }
    }
    static let zipMagic: [UInt8] = [0x50, 0x4B, 0x03, 0x04]

    /// The tracks in `paths`, in the order given (directories in name order, archives in their own
    /// order); a path that cannot be opened becomes `.failed` rather than stopping the others.
    /// `photos`: photos and their sidecars become `.photos` batches; when false (an upload to
    /// `roqua serve`, which takes tracks only) a named photo is read as a track and refused as
    /// one, and walked ones are passed over.
    public static func expand(_ paths: [String], photos: Bool = true) -> [TrackInput] {
        var inputs: [TrackInput] = []
        for path in paths { expand(path, named: true, root: nil, photos: photos, into: &inputs) }
        return inputs
    }

    /// `root`: the directory the user named, when `path` was found by walking it.
    private static func expand(_ path: String, named: Bool, root: String?, photos takesPhotos: Bool, into inputs: inout [TrackInput]) {
        var isDirectory: ObjCBool = false
        if FileManager.default.fileExists(atPath: path, isDirectory: &isDirectory), isDirectory.boolValue {
            var photos: [PhotoFile] = []
            walk(path, root: root ?? path, into: &inputs, photos: &photos)
            if !photos.isEmpty {
                inputs.append(takesPhotos ? .photos(PhotoBatch(name: path, files: photos)) : .skipped(path: path, count: photos.count))
            }
            return
        }
        // The history names a source by what the user would recognise and nothing of where it is
        // kept: a named file by its name, a walked one by its path inside the named directory.
        let historyName = root.map { String(path.dropFirst($0.count).drop { $0 == "/" }) } ?? (path as NSString).lastPathComponent
        if named, takesPhotos, path != "-" {
            switch PhotoFileKind(fileName: path) {
            case .photo: return inputs.append(.photos(PhotoBatch(name: path, files: [PhotoFile(photo: path, historyName: historyName)])))
            case .takeoutSidecar(let photo):
                let file = PhotoFile(
                    sidecar: path,
                    historyName: ((historyName as NSString).deletingLastPathComponent as NSString).appendingPathComponent(photo))
                return inputs.append(.photos(PhotoBatch(name: path, files: [file])))
            case .other: break
            }
        }
        do {
            guard path != "-" else { return inputs.append(.source(try TrackSource(file: path))) }
            let magic = try ByteStream(path: path).lookahead(4)
            // `PK` and the archive names: an empty archive starts with its end record, not `PK\3\4`.
            if magic.starts(with: zipMagic.prefix(2)) || archiveExtensions.contains(fileExtension(path)) {
                try unpack(path, historyName: historyName, into: &inputs)
            } else {
                inputs.append(.source(try TrackSource(file: path, foundByWalking: !named, historyName: historyName)))
            }
        } catch {
            inputs.append(.failed(path: path, error: error))
        }
    }

    private static func walk(_ directory: String, root: String, into inputs: inout [TrackInput], photos: inout [PhotoFile]) {
        let names: [String]
        do {
            names = try FileManager.default.contentsOfDirectory(atPath: directory).sorted()
        } catch {
            inputs.append(.failed(path: directory, error: InputError(file: directory, line: nil, message: "cannot list the directory")))
            return
        }
        var passed = 0
        // A photo and its sidecar, matched by the name the sidecar gives.
        var sidecars: [String: String] = [:]
        for name in names where !name.hasPrefix(".") {
            if case .takeoutSidecar(let photo) = PhotoFileKind(fileName: name) { sidecars[photo] = name }
        }
        let inFolder = { (name: String) in (directory as NSString).appendingPathComponent(name) }
        let relative = { (path: String) in String(path.dropFirst(root.count).drop { $0 == "/" }) }
        for name in names where !name.hasPrefix(".") {
            let path = inFolder(name)
            var isDirectory: ObjCBool = false
            guard FileManager.default.fileExists(atPath: path, isDirectory: &isDirectory) else { continue }
            if isDirectory.boolValue {
                walk(path, root: root, into: &inputs, photos: &photos)
            } else if PhotoFileKind(fileName: name) == .photo {
                photos.append(
                    PhotoFile(photo: path, sidecar: sidecars.removeValue(forKey: name).map(inFolder), historyName: relative(path)))
            } else if case .takeoutSidecar = PhotoFileKind(fileName: name) {
                continue
            } else if isTrackName(name) || archiveExtensions.contains(fileExtension(name)) {
                expand(path, named: false, root: root, photos: false, into: &inputs)
            } else {
                passed += 1
            }
        }
        // Sidecars whose photo is not here (a Takeout split over archives): the sidecar alone.
        for (photo, sidecar) in sidecars.sorted(by: { $0.key < $1.key }) {
            photos.append(PhotoFile(sidecar: inFolder(sidecar), historyName: relative(inFolder(photo))))
        }
        if passed > 0 { inputs.append(.skipped(path: directory, count: passed)) }
    }

    private static func unpack(_ path: String, historyName: String, into inputs: inout [TrackInput]) throws {
        let archive = try ZipArchive(path: path)
        let entries = try archive.entries()
        var found = 0
        for entry in entries where isTrackName(entry.name) && !isHidden(entry.name) {
            // Gzip by name here: deciding by content would mean opening every entry twice.
            let gzip = fileExtension(entry.name) == "gz"
            inputs.append(
                .source(
                    TrackSource(
                        name: "\(path):\(entry.name)", file: path, gzip: gzip, foundByWalking: true,
                        archive: archive, entry: entry, historyName: "\(historyName):\(entry.name)")))
            found += 1
        }
        guard found > 0 else {
            throw InputError(
                file: path, line: nil,
                message: "a ZIP archive with no supported file (\(entries.count) entries; "
                    + "expected names ending in " + trackExtensions.sorted().map { ".\($0)" }.joined(separator: ", ") + ", or .gz of those)"
            )
        }
        if entries.count > found { inputs.append(.skipped(path: path, count: entries.count - found)) }
    }

    /// Whether a file name is that of a track file (after taking off `.gz`).
    static func isTrackName(_ name: String) -> Bool {
        var base = (name as NSString).lastPathComponent
        if fileExtension(base) == "gz" { base = (base as NSString).deletingPathExtension }
        return trackExtensions.contains(fileExtension(base))
    }

    private static func isHidden(_ name: String) -> Bool {
        name.split(separator: "/").contains { $0.hasPrefix(".") || $0 == "__MACOSX" }
    }

    static func fileExtension(_ name: String) -> String {
        (name as NSString).pathExtension.lowercased()
    }
}
