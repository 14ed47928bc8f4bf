import Foundation
import RoquaBoundaries
import RoquaIO
import RoquaTestSupport
import Testing

@testable import RoquaRegions

/// The kept fixes' block format (`FixBlock`) and their units (`KeptFix`).
@Suite struct FixBlockTests {
    /// A phone's day: a fix every 5–60 s (whole seconds, sometimes milliseconds), walking or
    /// driving, accuracy and speed now and then.
    static func phoneDay(_ generator: inout SeededGenerator, count: Int, start: Int64 = 1_714_550_400_000) -> [KeptFix] {
        var fixes: [KeptFix] = []
        var (time, lat, lon) = (start, Int32(410_000_000), Int32(290_000_000))
        for i in 0..<count {
            time += Int64(5 + generator.below(56)) * 1000 + (generator.below(10) == 0 ? Int64(generator.below(1000)) : 0)
            let step = generator.below(20) == 0 ? 3000 : 150
            lat += Int32(generator.below(2 * step + 1) - step)
            lon += Int32(generator.below(2 * step + 1) - step)
            fixes.append(
                KeptFix(
                    time: time, latitude: lat, longitude: lon, accuracy: i % 7 == 0 ? -1 : Int32(30 + generator.below(100)),
                    speed: generator.below(3) == 0 ? -1 : Int32(generator.below(3000))))
        }
        return fixes
    }

    @Test func blocksComeBackExactly() throws {
        var generator = SeededGenerator(state: 7)
        for count in [1, 2, 100, FixBlock.capacity] {
            let fixes = Self.phoneDay(&generator, count: count)
            #expect(try FixBlock.decode(FixBlock.encode(fixes)) == fixes)
        }
        // Extremes: before 1970, the poles and the antimeridian, no accuracy or speed, equal times.
        let edges = [
            KeptFix(time: -2_208_988_800_000, latitude: -900_000_000, longitude: -1_800_000_000),
            KeptFix(time: -1, latitude: 900_000_000, longitude: 1_800_000_000, accuracy: Int32.max, speed: Int32.max),
            KeptFix(time: -1, latitude: 0, longitude: 0, accuracy: 0, speed: 0),
            KeptFix(time: 4_102_444_800_000, latitude: 1, longitude: -1),
        ]
        #expect(try FixBlock.decode(FixBlock.encode(edges)) == edges)
    }

    /// The history's size target: at most 10 bytes a fix for a phone history.
    @Test func aPhoneHistoryTakesFewBytesAFix() {
        var generator = SeededGenerator(state: 11)
        let fixes = Self.phoneDay(&generator, count: FixBlock.capacity)
        let perFix = Double(FixBlock.encode(fixes).count) / Double(fixes.count)
        #expect(perFix < 10, "\(perFix) bytes a fix")
    }

    @Test func damagedBlocksAreRefusedNeverMisread() {
        var generator = SeededGenerator(state: 3)
        let good = FixBlock.encode(Self.phoneDay(&generator, count: 300))
        var cases: [[UInt8]] = [[], [1], [2] + good.dropFirst(), Array(good.prefix(good.count / 2)), good + [0]]
        for offset in stride(from: 0, to: good.count, by: max(1, good.count / 40)) {
            var flipped = good
            flipped[offset] ^= 0x5A
            cases.append(flipped)
        }
        // Columns that inflate well but lie: a count of a million; times that run backwards.
        var columns: [UInt8] = []
        FixBlock.putVarint(1_000_000, &columns)
        cases.append([1] + Self.varint(UInt64(columns.count)) + Array(Zlib.deflate(columns)))
        var backwards: [UInt8] = []
        FixBlock.putVarint(2, &backwards)
        FixBlock.putVarint(FixBlock.zigzag(100) << 1, &backwards)
        FixBlock.putVarint(FixBlock.zigzag(-1) << 1, &backwards)
        backwards += [UInt8](repeating: 0, count: 8)
        cases.append([1] + Self.varint(UInt64(backwards.count)) + Zlib.deflate(backwards))
        for bytes in cases {
            // Either refused, or (a flip that zlib's checksum happens to miss is impossible: the
            // Adler-32 sees every byte) decoded to exactly what was written.
            if let fixes = try? FixBlock.decode(bytes) { #expect(FixBlock.encode(fixes) == bytes || bytes == good) }
        }
        #expect(throws: FixBlock.Damaged.self) { try FixBlock.decode(cases[5]) }
        #expect(throws: FixBlock.Damaged.self) { try FixBlock.decode(cases[cases.count - 1]) }
        #expect(throws: FixBlock.Damaged.self) { try FixBlock.decode(cases[cases.count - 2]) }
    }

    static func varint(_ value: UInt64) -> [UInt8] {
        var out: [UInt8] = []
        FixBlock.putVarint(value, &out)
        return out
    }

    @Test func fixesAreKeptToAMillisecondAndACentimetre() throws {
        let fix = Fix(
            coordinate: Coordinate(latitude: 40.98790004, longitude: -29.02810006),
            timestamp: Date(timeIntervalSince1970: 1_714_550_400.1234), accuracy: 4.26, speed: 1.234)
        let kept = try #require(KeptFix(fix))
        #expect(kept == KeptFix(time: 1_714_550_400_123, latitude: 409_879_000, longitude: -290_281_001, accuracy: 43, speed: 123))
        let back = kept.fix
        #expect(back.coordinate.latitude == 40.9879 && back.accuracy == 4.3 && back.speed == 1.23)
        #expect(KeptFix(Fix(coordinate: Coordinate(latitude: 91, longitude: 0), timestamp: Date())) == nil)
        #expect(KeptFix(Fix(coordinate: Coordinate(latitude: .nan, longitude: 0), timestamp: Date())) == nil)
        // The same fix from two files: the same second and position to 1e-6°, whatever else differs.
        let twin = KeptFix(time: 1_714_550_400_900, latitude: 409_879_004, longitude: -290_281_004, accuracy: 99, speed: -1)
        #expect(kept.identity == twin.identity)
        #expect(kept.identity != KeptFix(time: 1_714_550_401_000, latitude: 409_879_000, longitude: -290_281_001).identity)
        #expect(kept.identity != KeptFix(time: 1_714_550_400_123, latitude: 409_879_010, longitude: -290_281_001).identity)
    }
}
