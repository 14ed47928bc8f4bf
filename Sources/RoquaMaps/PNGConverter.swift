import Foundation

/// Why `PNGConverter.convert` produced no PNG.
public enum PNGConversionError: Error, CustomStringConvertible, Equatable, Sendable {
    /// No executable `rsvg-convert` on `PATH`.
    case converterMissing
    /// `rsvg-convert` exited with a non-zero `status`; `message` is what it wrote to standard error.
    case failed(status: Int32, message: String)

    /// One line saying what to install or how the converter failed.
    public var description: String {
        switch self {
        case .converterMissing:
            "--png needs rsvg-convert, which is not installed; install it with `apt-get install librsvg2-bin` "
                + "(Debian/Ubuntu package librsvg2-bin; Homebrew: librsvg). The SVG was written."
        case let .failed(status, message):
            "rsvg-convert failed (exit status \(status))" + (message.isEmpty ? "" : ": \(message)")
        }
    }
}

/// SVG → PNG through `rsvg-convert` (librsvg), found on `PATH`.
public enum PNGConverter {
    /// The first executable `rsvg-convert` in the `PATH` of `environment` (`/usr/local/bin:/usr/bin:/bin`
    /// when it has none), or `nil` when there is none.
    public static func converterPath(environment: [String: String] = ProcessInfo.processInfo.environment) -> String? {
        let path = environment["PATH"] ?? "/usr/local/bin:/usr/bin:/bin"
        return path.split(separator: ":").map { ($0 as Substring).description + "/rsvg-convert" }
            .first { FileManager.default.isExecutableFile(atPath: $0) }
    }

    /// `FILE.svg` → `FILE.png` (any other name gets `.png` appended).
    public static func pngPath(for svgPath: String) -> String {
        let url = URL(fileURLWithPath: svgPath)
        return url.pathExtension.lowercased() == "svg"
            ? url.deletingPathExtension().appendingPathExtension("png").path
            : svgPath + ".png"
    }

    /// Converts `svg` into `png`; throws a clear error when rsvg-convert is missing or fails.
    ///
    /// - Parameters:
    ///   - svg: Path of the SVG file to read.
    ///   - png: Path of the PNG file to write, on a white background.
    ///   - environment: Where `PATH` is looked up.
    /// - Throws: `PNGConversionError.converterMissing` when `rsvg-convert` is not on `PATH`;
    ///   `PNGConversionError.failed` when it exits with a non-zero status; Foundation's error when the
    ///   process cannot be started.
    public static func convert(
        svg: String, to png: String,
        environment: [String: String] = ProcessInfo.processInfo.environment
    ) throws {
        guard let converter = converterPath(environment: environment) else { throw PNGConversionError.converterMissing }
        let process = Process()
        process.executableURL = URL(fileURLWithPath: converter)
        process.arguments = ["--format", "png", "--background-color", "white", "--output", png, svg]
        let errors = Pipe()
        process.standardError = errors
        process.standardOutput = FileHandle.nullDevice
        try process.run()
        let message = errors.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        guard process.terminationStatus == 0 else {
            throw PNGConversionError.failed(
                status: process.terminationStatus,
                message: String(decoding: message, as: UTF8.self)
                    .trimmingCharacters(in: .whitespacesAndNewlines))
        }
    }
}
