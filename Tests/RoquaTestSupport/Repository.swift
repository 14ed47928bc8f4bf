import Foundation

/// Paths inside this source tree (tests run from it; the binary itself does not rely on it).
package enum Repository {
    package static let root = URL(fileURLWithPath: #filePath)
        .deletingLastPathComponent()  // RoquaTestSupport
        .deletingLastPathComponent()  // Tests
        .deletingLastPathComponent().path

    /// The bundled boundary dataset.
    package static var data: String { (root as NSString).appendingPathComponent("data") }

    package static func path(_ relative: String) -> String { (root as NSString).appendingPathComponent(relative) }
}
