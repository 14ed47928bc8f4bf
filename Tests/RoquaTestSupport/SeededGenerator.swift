/// SplitMix64: a seeded generator, so "random" test inputs are the same on every run.
package struct SeededGenerator: RandomNumberGenerator {
    package var state: UInt64

    package init(state: UInt64) { self.state = state }

    package mutating func next() -> UInt64 {
        state &+= 0x9E37_79B9_7F4A_7C15
        var z = state
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        return z ^ (z >> 31)
    }
}

extension SeededGenerator {
    /// A number in 0..<`n` (`n` > 0), for picking among a few cases.
    package mutating func below(_ n: Int) -> Int { Int(next() % UInt64(n)) }
}
