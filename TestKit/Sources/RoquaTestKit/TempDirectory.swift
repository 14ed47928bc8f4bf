import Foundation

/// A fresh directory under the system temp directory, removed with everything in it when the
/// object goes away. Keep a reference for as long as the files are needed.
public final class TempDirectory: Sendable {
    public let path: String

    public init(_ label: String = "roqua-test") throws {
        let template = (NSTemporaryDirectory() as NSString).appendingPathComponent("\(label).XXXXXX")
        var bytes = Array(template.utf8CString)
        guard let made = mkdtemp(&bytes) else {
            throw CocoaError(.fileWriteUnknown, userInfo: [NSFilePathErrorKey: template])
        }
        path = String(cString: made)
    }

    deinit {
        try? FileManager.default.removeItem(atPath: path)
    }

    /// `name` inside this directory (nothing is created).
    public func file(_ name: String) -> String {
        (path as NSString).appendingPathComponent(name)
    }

    /// A subdirectory, created if needed.
    public func subdirectory(_ name: String) throws -> String {
        let sub = file(name)
        try FileManager.default.createDirectory(atPath: sub, withIntermediateDirectories: true)
        return sub
    }

    /// The names of the entries in this directory (hidden ones included), sorted.
    public func contents() throws -> [String] {
        try FileManager.default.contentsOfDirectory(atPath: path).sorted()
    }
}
