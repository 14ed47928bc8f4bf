/// What a file name is, by its name alone.
public enum PhotoFileKind: Sendable, Equatable {
    /// A photo by extension (.jpg .jpeg .heic .heif .avif .png, any case).
    case photo
    /// A Google Takeout sidecar (`X.json`, `X.supplemental-metadata.json` or a truncation of it,
    /// optionally with a `(n)` duplicate counter) for the photo named `photoName`.
    case takeoutSidecar(photoName: String)
    case other

    private static let photoExtensions: Set<String> = ["jpg", "jpeg", "heic", "heif", "avif", "png"]
    private static let supplemental = "supplemental-metadata"

    /// Classifies a file name (a last path component; a full path also works).
    public init(fileName: String) {
        let name = fileName.split(separator: "/", omittingEmptySubsequences: false).last.map(String.init) ?? fileName
        if Self.hasPhotoExtension(name) {
            self = .photo
            return
        }
        let lower = name.lowercased()
        guard lower.hasSuffix(".json"), name.count > 5 else {
            self = .other
            return
        }
        var stem = String(name.dropLast(5))
        // Duplicate counter: "IMG.jpg.supplemental-metadata(1).json".
        if stem.hasSuffix(")"), let open = stem.lastIndex(of: "(") {
            let digits = stem[stem.index(after: open)..<stem.index(before: stem.endIndex)]
            if !digits.isEmpty, digits.count <= 4, digits.allSatisfy(\.isASCII), digits.allSatisfy(\.isNumber) {
                stem = String(stem[..<open])
            }
        }
        if Self.hasPhotoExtension(stem) {
            self = .takeoutSidecar(photoName: stem)
            return
        }
        // "IMG.jpg.supplemental-metadata" or a truncation like "IMG.jpg.supplemental-metad" / "IMG.jpg.s".
        if let dot = stem.lastIndex(of: ".") {
            let tail = stem[stem.index(after: dot)...].lowercased()
            let photo = String(stem[..<dot])
            if !tail.isEmpty, Self.supplemental.hasPrefix(tail), Self.hasPhotoExtension(photo) {
                self = .takeoutSidecar(photoName: photo)
                return
            }
        }
        self = .other
    }

    static func hasPhotoExtension(_ name: String) -> Bool {
        guard let dot = name.lastIndex(of: "."), dot != name.startIndex else { return false }
        return photoExtensions.contains(name[name.index(after: dot)...].lowercased())
    }
}
