import Foundation

/// Reads a file or standard input line by line with a fixed buffer: memory does not grow with
/// the file. Accepts \n and \r\n endings.
final class LineReader {
    private let handle: FileHandle
    private var buffer: [UInt8] = []
    private var start = 0
    private var finished = false
    private(set) var bytesRead = 0
    private(set) var lineNumber = 0
    let totalBytes: Int?

    init(path: String) throws {
        if path == "-" {
            handle = .standardInput
            totalBytes = nil
        } else {
            guard let handle = FileHandle(forReadingAtPath: path) else {
                throw BatchError.cannotOpen(path: path, reason: FileManager.default.fileExists(atPath: path)
                    ? "permission denied" : "no such file")
            }
            self.handle = handle
            totalBytes = (try? FileManager.default.attributesOfItem(atPath: path)[.size] as? Int) ?? nil
        }
    }

    /// The next line without its ending, or nil at the end of input.
    func next() throws -> String? {
        while true {
            if let newline = buffer[start...].firstIndex(of: 0x0A) {
                var end = newline
                if end > start, buffer[end - 1] == 0x0D { end -= 1 }
                let line = String(decoding: buffer[start..<end], as: UTF8.self)
                start = newline + 1
                lineNumber += 1
                return line
            }
            if finished {
                guard start < buffer.count else { return nil }
                let line = String(decoding: buffer[start...], as: UTF8.self)
                start = buffer.count
                lineNumber += 1
                return line
            }
            buffer.removeFirst(start)
            start = 0
            let chunk = try handle.read(upToCount: 1 << 20) ?? Data()
            if chunk.isEmpty { finished = true } else {
                bytesRead += chunk.count
                buffer.append(contentsOf: chunk)
            }
        }
    }

    /// The rest of the input at once (GeoJSON is one document).
    func readAll() throws -> Data {
        var data = Data(buffer[start...])
        buffer = []
        start = 0
        data.append(try handle.readToEnd() ?? Data())
        bytesRead = data.count
        return data
    }
}
