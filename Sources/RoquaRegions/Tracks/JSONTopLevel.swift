import RoquaIO

/// The top level of a JSON track file, walked for its reader: one shared state machine for
/// every JSON format. The members named in `streamed` must be arrays and are handed out one
/// element at a time; every other member is handed out by key for the reader to read or skip
/// (`JSONScanner.skipValue` keeps nothing). A top-level array, when `topLevelArray` allows it,
/// is streamed the same way with key nil. Memory: the element being read, never the file.
struct JSONTopLevel {
    let json: JSONScanner
    private let streamed: Set<String>
    private let topLevelArray: Bool
    /// What the file should have been, for the error when the top level is neither.
    private let expected: String
    private var state = State.start
    /// The streamed arrays met so far (`""` for a top-level array).
    private(set) var seen: Set<String> = []
    /// Set when the walk starts inside a streamed array, before its first element.
    private var atFirstElement = false

    private enum State: Equatable { case start, object, array(String?), done }

    enum Step: Equatable {
        /// A member not streamed: its value is next, to be read or skipped by the reader.
        case member(String)
        /// An element of the streamed array under `key` (nil: the top-level array) is next.
        case element(String?)
        /// The document ended (and nothing follows it).
        case end
    }

    init(_ json: JSONScanner, streaming streamed: Set<String>, topLevelArray: Bool = false, expected: String) {
        self.json = json
        self.streamed = streamed
        self.topLevelArray = topLevelArray
        self.expected = expected
    }

    /// A walk going on where `TrackDetection` stopped: `json` is inside the streamed array
    /// `key` of the top-level object, before its first element (`nextElement` said there is one).
    init(_ json: JSONScanner, resumingIn key: String, streaming streamed: Set<String>, expected: String) {
        self.init(json, streaming: streamed, expected: expected)
        state = .array(key)
        seen = [key]
        atFirstElement = true
    }

    mutating func next() throws(InputError) -> Step {
        while true {
            switch state {
            case .start:
                switch try json.peekToken() {
                case UInt8(ascii: "{"):
                    try json.beginObject("the top level")
                    state = .object
                case UInt8(ascii: "[") where topLevelArray:
                    try json.beginArray("the top level")
                    seen.insert("")
                    state = .array(nil)
                case nil:
                    throw InputError(file: json.stream.path, line: nil, message: "not \(expected): empty file")
                case let byte?:
                    let kind = byte == UInt8(ascii: "[") ? "an array" : "not a JSON object"
                    throw InputError(file: json.stream.path, line: nil, message: "not \(expected): the top level is \(kind)")
                }
            case .object:
                guard let key = try json.nextKey() else {
                    try json.expectEnd()
                    state = .done
                    continue
                }
                guard streamed.contains(key) else { return .member(key) }
                try json.beginArray("the \"\(key)\" array")
                seen.insert(key)
                state = .array(key)
            case let .array(key):
                if atFirstElement {
                    atFirstElement = false
                    json.beginRecord()
                    return .element(key)
                }
                if try json.nextElement() {
                    json.beginRecord()
                    return .element(key)
                }
                if key == nil {
                    try json.expectEnd()
                    state = .done
                } else {
                    state = .object
                }
            case .done:
                return .end
            }
        }
    }
}
