import Foundation

/// Greedy label placement: each label goes at its anchor, or is nudged up or down a line or two
/// when it would overlap a label already placed. Labels are placed biggest unit first.
struct LabelPlacer {
    struct Label {
        var text: String
        var x: Double
        var y: Double
    }

    let fontSize: Double
    /// Drop a label that cannot be placed without overlapping (crowded maps) instead of overlapping.
    let dropCrowded: Bool
    private var placed: [(minX: Double, minY: Double, maxX: Double, maxY: Double)] = []
    private(set) var labels: [Label] = []

    init(fontSize: Double, dropCrowded: Bool) {
        self.fontSize = fontSize
        self.dropCrowded = dropCrowded
    }

    /// `x, y`: the label's centre, pixels.
    mutating func place(_ text: String, x: Double, y: Double) {
        if let label = placeFree(text, x: x, y: y, size: fontSize, lines: [0, -1, 1, -2, 2]) {
            labels.append(label)
        } else if !dropCrowded {
            labels.append(Label(text: text, x: x, y: y))
        }
    }

    /// A secondary label (a locality's name) at `x, y` or a line above, only where it overlaps
    /// nothing placed so far; kept apart from `labels`, so it can be drawn in its own style.
    mutating func placeIfFree(_ text: String, x: Double, y: Double, fontSize size: Double) -> Label? {
        placeFree(text, x: x, y: y, size: size, lines: [0, -1])
    }

    /// The first of the positions `lines` (in lines of text from the anchor) where the label
    /// overlaps nothing placed, which it then occupies.
    private mutating func placeFree(_ text: String, x: Double, y: Double, size: Double, lines: [Int]) -> Label? {
        let halfWidth = Double(text.count) * size * 0.31 + 1, halfHeight = size * 0.55
        for dy in lines.map({ Double($0) * size * 1.1 }) {
            let box = (minX: x - halfWidth, minY: y + dy - halfHeight, maxX: x + halfWidth, maxY: y + dy + halfHeight)
            if !placed.contains(where: { $0.minX < box.maxX && box.minX < $0.maxX && $0.minY < box.maxY && box.minY < $0.maxY }) {
                placed.append(box)
                return Label(text: text, x: x, y: y + dy)
            }
        }
        return nil
    }
}
