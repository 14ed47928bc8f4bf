import RoquaText

extension JSONValue {
    /// The value as compact JSON text, members in file order.
    package var jsonText: String {
        var out = ""
        write(into: &out)
        return out
    }

    private func write(into out: inout String) {
        switch self {
        case let .object(members, _):
            out += "{"
            for (i, member) in members.enumerated() {
                if i > 0 { out += "," }
                out += JSONText.quote(member.key) + ":"
                member.value.write(into: &out)
            }
            out += "}"
        case let .array(elements, _):
            out += "["
            for (i, element) in elements.enumerated() {
                if i > 0 { out += "," }
                element.write(into: &out)
            }
            out += "]"
        case let .string(text, _): out += JSONText.quote(text)
        case let .number(value, _):
            out += value == value.rounded() && abs(value) < 1e15 ? String(Int64(value)) : "\(value)"
        case let .bool(value, _): out += value ? "true" : "false"
        case .null: out += "null"
        }
    }
}
