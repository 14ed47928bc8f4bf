import Foundation

/// One step of an XML document. Names are local names (a `gpx:` or any other namespace prefix
/// is dropped: GPX files in the wild use both the default namespace and prefixes). `depth` is
/// the element's own depth, 1 for the root.
package enum XMLEvent: Equatable {
    case start(name: String, attributes: XMLAttributes, line: Int, depth: Int)
    case end(name: String, line: Int, depth: Int)
    /// Character data (entities decoded, CDATA included); only produced while `keepText` is on.
    case text(String)
}

/// A start tag's attributes by local name, in document order: a tag has a few, so a linear
/// search beats hashing (a repeated name: the last one counts, as in a dictionary).
package struct XMLAttributes: Equatable {
    private var pairs: [(name: String, value: String)] = []

    package subscript(name: String) -> String? { pairs.last(where: { $0.name == name })?.value }

    package static func == (a: XMLAttributes, b: XMLAttributes) -> Bool {
        Dictionary(a.pairs, uniquingKeysWith: { $1 }) == Dictionary(b.pairs, uniquingKeysWith: { $1 })
    }

    /// Adds a pair read from a tag (a repeated name is left to the getter: the last one counts).
    mutating func append(_ name: String, _ value: String) { pairs.append((name, value)) }
}

/// A small pull tokenizer for the subset of XML that track files use: elements, attributes,
/// text, CDATA, comments, processing instructions (the `<?xml …?>` declaration) and a DOCTYPE
/// to skip. It checks well-formedness as it goes (matching end tags, nothing left open at the
/// end of the file) because a truncated or hand-broken file must be an error, not a shorter
/// track. Memory: the stack of open element names plus the current token.
package final class XMLTokenizer {
    package let stream: ByteStream
    /// Whether text is wanted; when off, text is skipped without being collected.
    package var keepText = false
    private var open: [(name: String, line: Int)] = []
    private var pendingEnd: (name: String, line: Int, depth: Int)?
    /// The root element, once it has closed: only whitespace, comments and processing
    /// instructions may follow it.
    private var closedRoot: String?

    /// All attribute names and values of one tag together may not pass this many bytes (real
    /// tags carry a few short attributes; a corrupt one must not be read into memory whole).
    package static let maxAttributeBytes = 64 << 10

    /// Reused for every name and value read, so a tag costs no buffer of its own.
    private var nameBytes: [UInt8] = []
    private var valueBytes: [UInt8] = []
    /// The element and attribute names met first, each with its local name: a track file repeats
    /// a dozen names millions of times, so each is made once (up to `NameCache.capacity` names;
    /// past that, as they come).
    private var names = NameCache()
    private var subtrees = XMLSubtreeScanner()

    package init(stream: ByteStream) {
        self.stream = stream
    }

    /// The next event, or nil at a clean end of the file.
    package func next() throws(InputError) -> XMLEvent? {
        while true {
            if let end = pendingEnd {
                pendingEnd = nil
                return .end(name: end.name, line: end.line, depth: end.depth)
            }
            guard let byte = try stream.peek() else {
                if let unclosed = open.last {
                    throw stream.error("file ends before <\(unclosed.name)> (opened on line \(unclosed.line)) is closed: truncated file?")
                }
                return nil
            }
            if byte != UInt8(ascii: "<") {
                if let root = closedRoot {
                    guard try stream.skip(until: ByteSet.notWhitespace) != UInt8(ascii: "<") else { continue }
                    if try stream.peek() == nil { continue }
                    throw stream.error("text after the end of the document (</\(root)>): broken XML")
                }
                if let text = try readText(), keepText { return .text(text) }
                continue
            }
            let line = stream.line
            stream.advance()
            switch try stream.peek() {
            case UInt8(ascii: "?"):
                try skip(past: Array("?>".utf8), what: "processing instruction", line: line)
            case UInt8(ascii: "!"):
                stream.advance()
                if let text = try readBang(line: line), keepText { return .text(text) }
            case UInt8(ascii: "/"):
                stream.advance()
                return try readEndTag(line: line)
            case nil:
                throw stream.error("file ends inside a tag: truncated file?")
            default:
                if let root = closedRoot {
                    throw stream.error("an element after the end of the document (</\(root)>): broken XML", line: line)
                }
                return try readStartTag(line: line)
            }
        }
    }

    /// The next element read whole, without events, when it is plain and lies in the bytes
    /// buffered now (see `XMLSubtree`) and `wanted` accepts its local name: `read` is given it,
    /// and when `read` takes it (true) the element is consumed and true returned. False, with
    /// nothing consumed, when the element is not such, when `read` declines, or when the tokenizer
    /// is not between elements inside the root with text unwanted: the caller reads on with `next()`.
    /// Not generic (`read` keeps what it found): a generic one, called from another module,
    /// looked its types up at run time on every element.
    package func takeElement(wanted: (UnsafeBufferPointer<UInt8>, Range<Int>) -> Bool, _ read: (XMLSubtree) -> Bool) -> Bool {
        guard pendingEnd == nil, closedRoot == nil, !open.isEmpty, !keepText else { return false }
        let line = stream.line, depthLeft = InputLimits.maxDepth - open.count
        return stream.takeBuffered { p -> (used: Int, newlines: Int, value: Bool)? in
            guard let (used, newlines, subtree) = subtrees.scan(p, line: line, depthLeft: depthLeft, wanted: wanted),
                read(subtree)
            else { return nil }
            return (used, newlines, true)
        } ?? false
    }

    // MARK: - Tags

    private func readStartTag(line: Int) throws(InputError) -> XMLEvent {
        let (name, local) = try readName(line: line)
        var attributes = XMLAttributes()
        var attributeBytes = 0
        while true {
            try skipWhitespace()
            guard let byte = try stream.next() else {
                throw stream.error("file ends inside <\(name)> (opened on line \(line)): truncated file?")
            }
            switch byte {
            case UInt8(ascii: ">"), UInt8(ascii: "/"):
                if byte == UInt8(ascii: "/") {
                    guard try stream.next() == UInt8(ascii: ">") else { throw stream.error("expected '>' after '/' in <\(name)>") }
                }
                open.append((name, line))
                guard open.count <= InputLimits.maxDepth else { throw stream.error("elements nested too deeply") }
                let depth = open.count
                if byte == UInt8(ascii: "/") {
                    open.removeLast()
                    if open.isEmpty { closedRoot = name }
                    pendingEnd = (local, line, depth)
                }
                return .start(name: local, attributes: attributes, line: line, depth: depth)
            case UInt8(ascii: "<"):
                throw stream.error("unexpected '<' inside <\(name)> (opened on line \(line)): broken XML")
            default:
                nameBytes.removeAll(keepingCapacity: true)
                nameBytes.append(byte)
                while let b = try stream.peek(), !Self.isWhitespace(b), b != UInt8(ascii: "="), b != UInt8(ascii: ">"),
                    b != UInt8(ascii: "/"), b != UInt8(ascii: "<")
                {
                    nameBytes.append(b)
                    stream.advance()
                    guard nameBytes.count <= 1024 else { throw stream.error("attribute name too long in <\(name)>") }
                }
                let (attributeName, attributeLocal) = names.name(nameBytes)
                let attributeLength = nameBytes.count
                try skipWhitespace()
                guard try stream.next() == UInt8(ascii: "=") else {
                    throw stream.error("attribute \(attributeName) in <\(name)> has no value: broken XML")
                }
                try skipWhitespace()
                guard let quote = try stream.next(), quote == UInt8(ascii: "\"") || quote == UInt8(ascii: "'") else {
                    throw stream.error("attribute \(attributeName) in <\(name)> is not quoted: broken XML")
                }
                attributeBytes += attributeLength
                let value = try readCharacters(
                    until: quote, inAttribute: true,
                    limit: max(0, Self.maxAttributeBytes - attributeBytes), tag: name)
                attributeBytes += value.utf8.count
                attributes.append(attributeLocal, value)
                _ = try stream.next()  // the closing quote, known to be there
            }
        }
    }

    private func readEndTag(line: Int) throws(InputError) -> XMLEvent {
        let (name, local) = try readName(line: line)
        try skipWhitespace()
        guard try stream.next() == UInt8(ascii: ">") else { throw stream.error("malformed closing tag </\(name)>: broken XML") }
        guard let top = open.last else {
            throw stream.error("closing tag </\(name)> without a matching opening tag: broken XML", line: line)
        }
        guard top.name == name else {
            throw stream.error("closing tag </\(name)> does not match <\(top.name)> opened on line \(top.line): broken XML", line: line)
        }
        let depth = open.count
        open.removeLast()
        if open.isEmpty { closedRoot = name }
        return .end(name: local, line: line, depth: depth)
    }

    /// The name and its local name.
    private func readName(line: Int) throws(InputError) -> (String, String) {
        nameBytes.removeAll(keepingCapacity: true)
        try stream.collect(until: Self.nameStops, into: &nameBytes, limit: 1024)
        guard !nameBytes.isEmpty else {
            if try stream.peek() == nil { throw stream.error("file ends inside a tag: truncated file?") }
            throw stream.error("malformed tag (no element name): broken XML", line: line)
        }
        return names.name(nameBytes)
    }

    // MARK: - Text, CDATA, comments

    /// `<!--…-->`, `<![CDATA[…]]>` (returned as text) or `<!DOCTYPE …>` (skipped).
    private func readBang(line: Int) throws(InputError) -> String? {
        if try stream.peek() == UInt8(ascii: "-") {
            stream.advance()
            guard try stream.next() == UInt8(ascii: "-") else { throw stream.error("malformed comment: broken XML", line: line) }
            try skip(past: Array("-->".utf8), what: "comment", line: line)
            return nil
        }
        if try stream.peek() == UInt8(ascii: "[") {
            for expected in "[CDATA[".utf8 {
                guard try stream.next() == expected else { throw stream.error("malformed CDATA section: broken XML", line: line) }
            }
            guard keepText else {
                try skip(past: Array("]]>".utf8), what: "CDATA section", line: line)
                return nil
            }
            var bytes: [UInt8] = []
            while true {
                guard let b = try stream.next() else { throw stream.error("file ends inside a CDATA section opened on line \(line)") }
                bytes.append(b)
                if bytes.count >= 3, bytes[bytes.count - 3] == 0x5D, bytes[bytes.count - 2] == 0x5D, b == 0x3E {
                    bytes.removeLast(3)
                    return String(decoding: bytes, as: UTF8.self)
                }
                guard bytes.count <= InputLimits.maxRecordBytes else { throw stream.error("CDATA section too long", line: line) }
            }
        }
        // A DOCTYPE, possibly with an internal subset in [...]: skip to the '>' outside brackets.
        var brackets = 0
        while let b = try stream.next() {
            if b == UInt8(ascii: "[") { brackets += 1 }
            if b == UInt8(ascii: "]") { brackets -= 1 }
            if b == UInt8(ascii: ">"), brackets <= 0 { return nil }
        }
        throw stream.error("file ends inside a <! declaration opened on line \(line)")
    }

    /// Text up to the next `<`: decoded when kept, otherwise only skipped.
    private func readText() throws(InputError) -> String? {
        guard keepText else {
            try stream.skip(until: Self.markupStart)  // entities need no decoding when dropped
            return nil
        }
        return try readCharacters(until: UInt8(ascii: "<"), inAttribute: false, limit: InputLimits.maxRecordBytes, tag: nil)
    }

    /// Characters up to (not including) `terminator`, with entity references decoded.
    /// `limit` caps the decoded bytes (the attribute budget left in `tag`, or the record limit
    /// for text).
    private func readCharacters(until terminator: UInt8, inAttribute: Bool, limit: Int, tag: String?) throws(InputError) -> String {
        let startLine = stream.line
        var bytes = valueBytes
        bytes.removeAll(keepingCapacity: true)
        defer { valueBytes = bytes }
        let stops =
            terminator == UInt8(ascii: "\"")
            ? Self.doubleQuotedStops : terminator == UInt8(ascii: "'") ? Self.singleQuotedStops : Self.textStops
        func tooLong() -> InputError {
            if let tag { return stream.error("attributes of <\(tag)> are longer than \(Self.maxAttributeBytes) bytes", line: startLine) }
            return stream.error("text too long", line: startLine)
        }
        while true {
            do {
                try stream.collect(until: stops, into: &bytes, limit: limit)
            } catch {
                throw bytes.count > limit ? tooLong() : error
            }
            guard let b = try stream.peek() else {
                if inAttribute { throw stream.error("file ends inside an attribute value begun on line \(startLine)") }
                break
            }
            if b == terminator { break }
            if inAttribute, b == UInt8(ascii: "<") { throw stream.error("'<' inside an attribute value: broken XML") }
            stream.advance()
            if b == UInt8(ascii: "&") {
                bytes.append(contentsOf: try readEntity())
            } else {
                bytes.append(b)
            }
            guard bytes.count <= limit else { throw tooLong() }
        }
        return String(decoding: bytes, as: UTF8.self)
    }

    /// After `&`: `lt;`, `gt;`, `amp;`, `quot;`, `apos;`, `#NN;` or `#xHH;`.
    private func readEntity() throws(InputError) -> [UInt8] {
        var name: [UInt8] = []
        while let b = try stream.next() {
            if b == UInt8(ascii: ";") {
                let text = String(decoding: name, as: UTF8.self)
                switch text {
                case "lt": return Array("<".utf8)
                case "gt": return Array(">".utf8)
                case "amp": return Array("&".utf8)
                case "quot": return Array("\"".utf8)
                case "apos": return Array("'".utf8)
                default:
                    var scalarValue: UInt32?
                    if text.hasPrefix("#x") || text.hasPrefix("#X") {
                        scalarValue = UInt32(text.dropFirst(2), radix: 16)
                    } else if text.hasPrefix("#") {
                        scalarValue = UInt32(text.dropFirst(), radix: 10)
                    }
                    guard let scalarValue, let scalar = Unicode.Scalar(scalarValue) else {
                        throw stream.error("unknown entity &\(text);: broken XML")
                    }
                    return Array(String(Character(scalar)).utf8)
                }
            }
            name.append(b)
            guard name.count <= 16 else { break }
        }
        throw stream.error("malformed '&' entity reference: broken XML")
    }

    private func skip(past terminator: [UInt8], what: String, line: Int) throws(InputError) {
        // Compare the last few bytes read against the terminator; a plain match counter would
        // miss overlaps such as `--->` ending a comment.
        var recent = [UInt8](repeating: 0, count: terminator.count)
        while let b = try stream.next() {
            recent.removeFirst()
            recent.append(b)
            if recent == terminator { return }
        }
        throw stream.error("file ends inside a \(what) opened on line \(line): truncated file?")
    }

    private func skipWhitespace() throws(InputError) {
        while let b = try stream.peek(), Self.isWhitespace(b) { stream.advance() }
    }

    /// Where an element or attribute name ends.
    private static let nameStops = ByteSet(Array(" \n\r\t>/<=\"'".utf8))
    private static let markupStart = ByteSet([UInt8(ascii: "<")])
    /// Where a plain run of text or attribute value ends (an entity, markup or the quote).
    private static let textStops = ByteSet(Array("<&".utf8))
    private static let doubleQuotedStops = ByteSet(Array("<&\"".utf8))
    private static let singleQuotedStops = ByteSet(Array("<&'".utf8))

    private static func isWhitespace(_ b: UInt8) -> Bool {
        b == 0x20 || b == 0x0A || b == 0x0D || b == 0x09
    }

    static func localName(_ name: String) -> String {
        guard let colon = name.utf8.lastIndex(of: UInt8(ascii: ":")) else { return name }
        return String(name[name.utf8.index(after: colon)...])
    }
}

/// Names made once: the bytes of each name met first, with its string and local name.
struct NameCache {
    static let capacity = 32
    private var known: [(bytes: [UInt8], name: String, local: String)] = []

    /// The name spelled by `bytes` and its local name (after the last `:`).
    mutating func name(_ bytes: [UInt8]) -> (String, String) {
        for entry in known where entry.bytes == bytes { return (entry.name, entry.local) }
        let name = String(decoding: bytes, as: UTF8.self)
        let local = XMLTokenizer.localName(name)
        if known.count < Self.capacity { known.append((bytes, name, local)) }
        return (name, local)
    }
}
