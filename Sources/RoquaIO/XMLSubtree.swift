import Foundation

/// A small element read whole out of the bytes buffered now, with everything under it, in one
/// pass and without events or strings (see `XMLTokenizer.takeElement`): a track point with its
/// time and extensions is such an element, millions of times in a file.
///
/// Only the plainest XML is read this way: ASCII, no entity references, comments, CDATA or
/// processing instructions, no text beside child elements, a closing tag for every opening one
/// (children may close themselves). Anything else is declined, and the tokenizer reads it event
/// by event as before — which also names what is wrong with it.
package struct XMLSubtree {
    /// One element: `nodes[0]` is the element taken, the others its descendants in document order.
    package struct Node {
        /// 0 for the element taken, 1 for its children, and so on.
        package var depth: Int
        /// The local name (after the last `:`), as offsets into `bytes`.
        package var local: Range<Int>
        /// The text of an element without children (empty for `<a/>`); nil for one with children.
        package var text: Range<Int>?
        /// Its attributes, as indices into `attributes`.
        package var attributes: Range<Int>
    }

    /// An attribute: its local name and its value (between the quotes), as offsets into `bytes`.
    package struct Attribute {
        package var local: Range<Int>
        package var value: Range<Int>
    }

    /// The buffered bytes the ranges point into; valid only while the reading closure runs.
    package let bytes: UnsafeBufferPointer<UInt8>
    package let nodes: [Node]
    package let attributes: [Attribute]
    /// The line of the element's opening `<`.
    package let line: Int

    /// Whether `range` of `bytes` spells `name`.
    package func equals(_ range: Range<Int>, _ name: StaticString) -> Bool {
        guard range.count == name.utf8CodeUnitCount else { return false }
        let spelled = name.utf8Start
        for k in 0..<range.count where bytes[range.lowerBound + k] != spelled[k] { return false }
        return true
    }

    /// `range` of `bytes` as an array slice, for the value parsers.
    package func slice(_ range: Range<Int>) -> ArraySlice<UInt8> {
        Array(UnsafeBufferPointer(rebasing: bytes[range]))[...]
    }

    /// The value of node `node`'s last attribute of local name `name` (a repeated name: the last
    /// one counts, as for `XMLAttributes`).
    package func attribute(_ name: StaticString, of node: Node) -> Range<Int>? {
        for index in node.attributes.reversed() where equals(attributes[index].local, name) { return attributes[index].value }
        return nil
    }
}

/// The one-pass reader behind `XMLTokenizer.takeElement`; its arrays are reused from call to call.
struct XMLSubtreeScanner {
    /// The most elements one subtree may hold, and how deep it may go, before it is declined.
    static let maxNodes = 64
    static let maxDepth = 8

    private var nodes: [XMLSubtree.Node] = []
    private var attributes: [XMLSubtree.Attribute] = []
    /// Open elements: the node index and the full name's range (to match the closing tag).
    private var open: [(node: Int, name: Range<Int>)] = []

    init() {
        nodes.reserveCapacity(Self.maxNodes)
        attributes.reserveCapacity(16)
        open.reserveCapacity(Self.maxDepth)
    }

    /// Reads `p` from its start: whitespace, then one element and everything under it. Returns
    /// the bytes used, the newlines among them, the subtree's line, or nil to decline (nothing
    /// was understood to be taken). `wanted` is asked about the first element's local name as
    /// soon as it is read (declining early costs nothing more); `depthLeft` is how deep the
    /// subtree may go (the tokenizer's own limit, less the elements open around it).
    mutating func scan(
        _ p: UnsafeBufferPointer<UInt8>, line: Int, depthLeft: Int,
        wanted: (UnsafeBufferPointer<UInt8>, Range<Int>) -> Bool
    )
        -> (used: Int, newlines: Int, subtree: XMLSubtree)?
    {
        nodes.removeAll(keepingCapacity: true)
        attributes.removeAll(keepingCapacity: true)
        open.removeAll(keepingCapacity: true)
        let n = p.count
        var i = 0, newlines = 0
        @inline(__always) func isSpace(_ b: UInt8) -> Bool { b == 0x20 || b == 0x0A || b == 0x0D || b == 0x09 }
        @inline(__always) func isNameStop(_ b: UInt8) -> Bool {
            isSpace(b) || b == UInt8(ascii: ">") || b == UInt8(ascii: "/") || b == UInt8(ascii: "<") || b == UInt8(ascii: "=")
                || b == UInt8(ascii: "\"") || b == UInt8(ascii: "'")
        }
        func whitespace() {
            while i < n, isSpace(p[i]) {
                if p[i] == 0x0A { newlines += 1 }
                i += 1
            }
        }
        /// A name up to a stop byte: its range, nil when empty, too long, not ASCII or at the buffer's end.
        func name() -> Range<Int>? {
            let start = i
            while i < n, !isNameStop(p[i]) {
                guard p[i] < 0x80, i - start < 1024 else { return nil }
                i += 1
            }
            return i > start && i < n ? start..<i : nil
        }
        func local(_ name: Range<Int>) -> Range<Int> {
            var k = name.upperBound
            while k > name.lowerBound, p[k - 1] != UInt8(ascii: ":") { k -= 1 }
            return k..<name.upperBound
        }
        /// After `<`: a start tag with its attributes, up to and including `>` or `/>`. Returns
        /// whether it closed itself; nil to decline.
        func startTag(depth: Int) -> Bool? {
            guard depth < Self.maxDepth, depth < depthLeft, nodes.count < Self.maxNodes, let full = name() else { return nil }
            let localName = local(full)
            guard !localName.isEmpty else { return nil }
            if depth == 0, !wanted(p, localName) { return nil }
            let first = attributes.count
            var attributeBytes = 0
            while true {
                let before = i
                whitespace()
                guard i < n else { return nil }
                let b = p[i]
                if b == UInt8(ascii: ">") || b == UInt8(ascii: "/") {
                    if b == UInt8(ascii: "/") {
                        i += 1
                        guard i < n, p[i] == UInt8(ascii: ">") else { return nil }
                    }
                    i += 1
                    nodes.append(XMLSubtree.Node(depth: depth, local: localName, text: nil, attributes: first..<attributes.count))
                    if b == UInt8(ascii: "/") {
                        guard depth > 0 else { return nil }  // a point with nothing in it: rare, read by events
                        nodes[nodes.count - 1].text = i..<i
                        return true
                    }
                    open.append((nodes.count - 1, full))
                    return false
                }
                // An attribute: whitespace before it, a name, `=`, a quoted value without `<` or `&`.
                guard i > before, let attribute = name() else { return nil }
                whitespace()
                guard i < n, p[i] == UInt8(ascii: "=") else { return nil }
                i += 1
                whitespace()
                guard i < n, p[i] == UInt8(ascii: "\"") || p[i] == UInt8(ascii: "'") else { return nil }
                let quote = p[i]
                i += 1
                let start = i
                while i < n, p[i] != quote {
                    let c = p[i]
                    guard c < 0x80, c != UInt8(ascii: "<"), c != UInt8(ascii: "&") else { return nil }
                    if c == 0x0A { newlines += 1 }
                    i += 1
                }
                guard i < n else { return nil }
                attributeBytes += attribute.count + (i - start)
                guard attributeBytes <= XMLTokenizer.maxAttributeBytes else { return nil }
                attributes.append(XMLSubtree.Attribute(local: local(attribute), value: start..<i))
                i += 1
            }
        }

        whitespace()
        guard i + 1 < n, p[i] == UInt8(ascii: "<"), p[i + 1] != UInt8(ascii: "!"), p[i + 1] != UInt8(ascii: "?") else { return nil }
        let elementLine = line + newlines
        i += 1
        guard let closed = startTag(depth: 0), !closed else { return nil }
        // Content: text runs and child elements until the element taken closes.
        var sawChild = [false], sawText = [false]
        var textStart = i
        while let top = open.last {
            let depth = open.count - 1
            var blank = true
            while i < n, p[i] != UInt8(ascii: "<") {
                let c = p[i]
                guard c < 0x80, c != UInt8(ascii: "&") else { return nil }
                if c == 0x0A { newlines += 1 }
                if !isSpace(c) { blank = false }
                i += 1
            }
            guard i + 1 < n else { return nil }
            if !blank {
                guard !sawChild[depth] else { return nil }  // text beside elements
                sawText[depth] = true
            }
            let textEnd = i
            i += 1
            switch p[i] {
            case UInt8(ascii: "/"):
                i += 1
                guard let full = name(), full.count == top.name.count,
                    memcmp(p.baseAddress! + full.lowerBound, p.baseAddress! + top.name.lowerBound, full.count) == 0
                else { return nil }
                whitespace()
                guard i < n, p[i] == UInt8(ascii: ">") else { return nil }
                i += 1
                if !sawChild[depth] { nodes[top.node].text = textStart..<textEnd }
                open.removeLast()
                sawChild.removeLast()
                sawText.removeLast()
                textStart = i
            case UInt8(ascii: "!"), UInt8(ascii: "?"):
                return nil
            default:
                guard !sawText[depth] else { return nil }  // text beside elements
                sawChild[depth] = true
                guard let closed = startTag(depth: depth + 1) else { return nil }
                if !closed {
                    sawChild.append(false)
                    sawText.append(false)
                }
                textStart = i
            }
        }
        return (i, newlines, XMLSubtree(bytes: p, nodes: nodes, attributes: attributes, line: elementLine))
    }
}
