import Foundation

/// One country's populated places as `LocalityIndex` searches them, packed into one blob of the
/// boundary DB's `locality_packs` table by `roqua import`: the places, their names, the codes of
/// their provinces and districts, and the grid of cells their reach touches, computed once at
/// import. Reading the world's 226 k places from their rows cost a batch 0.28 s on one core
/// (every row stepped, every name and code made a string and hashed, every grid sorted); the
/// packs are read as they lie.
///
/// Blob (little-endian):
/// ```
/// header   UInt32 × 10: magic, places n, codes k, name bytes, code bytes,
///                       grid first column, width, first row (Int32), height, members m
/// latitude, longitude   Double × n each
/// id                    Int64 × n (GeoNames' id)
/// population            UInt32 × n
/// province, district    Int32 × n each: the index of the place's code in `codes`, -1 for none
/// name ends             UInt32 × n: where each name ends in `names` (it starts where the one before ends)
/// code ends             UInt32 × k
/// starts                UInt32 × (width · height + 1): where each cell's run of `members` starts
/// members               UInt32 × m: places, by cell
/// names, codes          UTF-8
/// ```
/// A pack is checked whole before it is used: every count, end, start and member inside its
/// section, every coordinate on the globe, every name and code whole UTF-8. A damaged pack is an
/// error naming the rule broken, never a wild read.
package struct LocalityPack: Equatable, Sendable {
    package static let magic: UInt32 = 0x314C_5152  // "RQL1"
    /// What a country's pack may hold at most: far above the largest country (the US: 30 k places).
    package static let maxPlaces = 4_000_000
    package static let maxNameBytes = 1 << 28

    /// A place as packed: its province and district as indexes into `codes`.
    package struct Place: Equatable, Sendable {
        package var latitude: Double
        package var longitude: Double
        package var id: Int64
        package var population: Int32
        package var province: Int32
        package var district: Int32

        package init(latitude: Double, longitude: Double, id: Int64, population: Int32, province: Int32, district: Int32) {
            (self.latitude, self.longitude, self.id) = (latitude, longitude, id)
            (self.population, self.province, self.district) = (population, province, district)
        }
    }

    package var places: [Place] = []
    /// Every place's name, one after another.
    package var names: [UInt8] = []
    package var nameEnds: [UInt32] = []
    /// The province and district codes the places name.
    package var codes: [String] = []
    package var cells = PlaceCells(reaching: [])

    /// Why a blob is not a pack.
    package struct Damage: Error, Equatable {
        package var reason: String
    }

    package init() {}

    /// A pack of `places` (name, code of its province and district), in the order given.
    package init(_ places: [(place: LocalityPack.Place, name: String, province: String?, district: String?)]) {
        var codeIndex: [String: Int32] = [:]
        func index(_ code: String?) -> Int32 {
            guard let code else { return -1 }
            if let known = codeIndex[code] { return known }
            codeIndex[code] = Int32(codes.count)
            codes.append(code)
            return Int32(codes.count - 1)
        }
        for entry in places {
            var place = entry.place
            place.province = index(entry.province)
            place.district = index(entry.district)
            self.places.append(place)
            names.append(contentsOf: entry.name.utf8)
            nameEnds.append(UInt32(names.count))
        }
        cells = PlaceCells(
            reaching: self.places.map { ($0.latitude, $0.longitude, LocalityIndex.reach(population: Int($0.population))) })
    }

    /// The pack as one blob.
    package func encoded() -> [UInt8] {
        let codeBytes = codes.flatMap(\.utf8)
        var out: [UInt8] = []
        out.reserveCapacity(64 + places.count * 48 + names.count + cells.starts.count * 4 + cells.members.count * 4)
        func put<T: FixedWidthInteger>(_ value: T) { withUnsafeBytes(of: value.littleEndian) { out.append(contentsOf: $0) } }
        for word in [
            Self.magic, UInt32(places.count), UInt32(codes.count), UInt32(names.count), UInt32(codeBytes.count),
            UInt32(cells.grid.firstColumn), UInt32(cells.grid.width), UInt32(bitPattern: Int32(cells.grid.firstRow)),
            UInt32(cells.grid.height), UInt32(cells.members.count),
        ] {
            put(word)
        }
        for place in places { put(place.latitude.bitPattern) }
        for place in places { put(place.longitude.bitPattern) }
        for place in places { put(place.id) }
        for place in places { put(UInt32(bitPattern: place.population)) }
        for place in places { put(place.province) }
        for place in places { put(place.district) }
        for end in nameEnds { put(end) }
        var codeEnd = 0
        for code in codes {
            codeEnd += code.utf8.count
            put(UInt32(codeEnd))
        }
        for start in cells.starts { put(UInt32(start)) }
        for member in cells.members { put(UInt32(member)) }
        out.append(contentsOf: names)
        out.append(contentsOf: codeBytes)
        return out
    }

    /// The pack a blob holds, checked whole.
    /// - Throws: `Damage` naming the first rule the blob breaks.
    package init(decoding blob: UnsafeRawBufferPointer) throws(Damage) {
        var offset = 0
        func fail(_ reason: String) -> Damage { Damage(reason: reason) }
        func words<T: FixedWidthInteger>(_ count: Int, _: T.Type) throws(Damage) -> [T] {
            let size = MemoryLayout<T>.size
            guard count >= 0, count <= (blob.count - offset) / size else { throw fail("ends inside its sections (\(blob.count) bytes)") }
            let start = offset
            offset += count * size
            return (0..<count).map { T(littleEndian: blob.loadUnaligned(fromByteOffset: start + $0 * size, as: T.self)) }
        }
        let header = try words(10, UInt32.self)
        guard header[0] == Self.magic else { throw fail("not a locality pack (magic \(String(header[0], radix: 16)))") }
        let (n, k, nameBytes, codeBytes) = (Int(header[1]), Int(header[2]), Int(header[3]), Int(header[4]))
        let (firstRow, height, m) = (Int(Int32(bitPattern: header[7])), Int(header[8]), Int(header[9]))
        let grid = CellGrid(firstColumn: Int(header[5]), width: Int(header[6]), firstRow: firstRow, height: height)
        guard n <= Self.maxPlaces, k <= 2 * n, nameBytes <= Self.maxNameBytes, codeBytes <= Self.maxNameBytes else {
            throw fail("\(n) places, \(k) codes, \(nameBytes) + \(codeBytes) bytes of text: more than a country holds")
        }
        guard grid.isPossible, m <= n * grid.count else {
            throw fail(
                "a grid of \(grid.width) × \(grid.height) cells from column \(grid.firstColumn), row \(grid.firstRow) with \(m) members")
        }
        let latitudes = try words(n, UInt64.self), longitudes = try words(n, UInt64.self)
        let ids = try words(n, Int64.self), populations = try words(n, UInt32.self)
        let provinces = try words(n, Int32.self), districts = try words(n, Int32.self)
        nameEnds = try words(n, UInt32.self)
        let codeEnds = try words(k, UInt32.self)
        let starts = try words(grid.count + 1, UInt32.self), members = try words(m, UInt32.self)
        guard blob.count - offset == nameBytes + codeBytes else {
            throw fail("\(blob.count - offset) bytes of text where the header says \(nameBytes + codeBytes)")
        }
        names = Array(blob[offset..<offset + nameBytes])
        let codeText = Array(blob[offset + nameBytes..<blob.count])
        try Self.checkEnds(nameEnds, of: names, what: "name")
        try Self.checkEnds(codeEnds, of: codeText, what: "code")
        codes = codeEnds.indices.map { i in
            String(decoding: codeText[(i == 0 ? 0 : Int(codeEnds[i - 1]))..<Int(codeEnds[i])], as: UTF8.self)
        }
        for i in 0..<n {
            let place = Place(
                latitude: Double(bitPattern: latitudes[i]), longitude: Double(bitPattern: longitudes[i]), id: ids[i],
                population: Int32(bitPattern: populations[i]), province: provinces[i], district: districts[i])
            guard place.latitude.isFinite, abs(place.latitude) <= 90, place.longitude.isFinite, abs(place.longitude) <= 180,
                place.population >= 0
            else { throw fail("place \(place.id) at \(place.latitude), \(place.longitude) with \(place.population) people") }
            guard (-1..<Int32(k)).contains(place.province), (-1..<Int32(k)).contains(place.district) else {
                throw fail("place \(place.id) names code \(max(place.province, place.district)) of \(k)")
            }
            places.append(place)
        }
        guard starts.first == 0, starts.last == UInt32(m), zip(starts, starts.dropFirst()).allSatisfy({ $0 <= $1 }) else {
            throw fail("the cells' runs of members do not go from 0 to \(m) in order")
        }
        guard members.allSatisfy({ $0 < UInt32(n) }) else { throw fail("a cell lists a place beyond the \(n)") }
        cells = PlaceCells(grid: grid, starts: starts.map { Int32($0) }, members: members.map { Int32($0) })
    }

    /// Ends that go up from 0 to the text's length, each on a character's first byte, in text
    /// that is UTF-8 whole: then every piece is UTF-8 too.
    private static func checkEnds(_ ends: [UInt32], of text: [UInt8], what: String) throws(Damage) {
        guard ends.last.map({ Int($0) == text.count }) ?? text.isEmpty,
            zip([0] + ends, ends).allSatisfy({ $0 <= $1 }),
            ends.dropLast().allSatisfy({ Int($0) == text.count || text[Int($0)] & 0xC0 != 0x80 }),
            String(validating: text, as: UTF8.self) != nil
        else { throw Damage(reason: "the \(what)s are not UTF-8 text cut where their ends say") }
    }
}

/// Which places' reach touches each cell of `LocalityIndex`'s grid, over the box of cells
/// they touch.
package struct PlaceCells: Equatable, Sendable {
    let grid: CellGrid
    /// Per cell of `grid`, where its run of `members` starts (it ends where the next starts; one
    /// more entry ends the last).
    let starts: [Int32]
    /// Places by cell, in order within a cell.
    let members: [Int32]

    init(grid: CellGrid, starts: [Int32], members: [Int32]) {
        self.grid = grid
        self.starts = starts
        self.members = members
    }

    /// The cells of places at (latitude, longitude) reaching `reach` metres, numbered in order.
    init(reaching places: [(latitude: Double, longitude: Double, reach: Double)]) {
        // Every (cell, place) pair whose reach box touches the cell.
        var touched: [(cx: Int32, cy: Int32, place: Int32)] = []
        touched.reserveCapacity(places.count * 4)
        for (i, place) in places.enumerated() {
            let dy = place.reach / Geodesy.earthRadius * 180 / .pi
            let dx = dy / max(cos(min(abs(place.latitude) + dy, 89.9) * .pi / 180), 1e-3)
            for cy in LocalityIndex.cell(place.latitude - dy)...LocalityIndex.cell(place.latitude + dy) {
                for cx in LocalityIndex.cell(place.longitude - dx)...LocalityIndex.cell(place.longitude + dx) {
                    touched.append((Int32(LocalityIndex.wrap(cx)), Int32(cy), Int32(i)))
                }
            }
        }
        let grid = CellGrid(columnsUsed: touched.map(\.cx), rowsUsed: touched.map(\.cy))
        // Each pair as its cell's number above the place's number, sorted: plain integers sort
        // several times faster than tuples.
        var pairs = touched.map { UInt64(UInt32(grid.number(cx: Int($0.cx), cy: Int($0.cy)) ?? 0)) << 32 | UInt64(UInt32($0.place)) }
        pairs.sort()
        var starts = [Int32](repeating: 0, count: grid.count + 1)
        var k = 0
        for cell in 0...grid.count {
            while k < pairs.count, Int(pairs[k] >> 32) < cell { k += 1 }
            starts[cell] = Int32(k)
        }
        self.init(grid: grid, starts: starts, members: pairs.map { Int32(truncatingIfNeeded: $0) })
    }
}

/// A box of grid cells, numbered row by row: its rows from the lowest used to the highest, its
/// columns from the first after the widest run of unused ones, eastwards across the antimeridian
/// if need be.
struct CellGrid: Equatable, Sendable {
    let firstColumn: Int
    let width: Int
    let firstRow: Int
    let height: Int

    var count: Int { width * height }

    /// A box within the grid's columns and a few rows beyond the poles (reach boxes pass them).
    var isPossible: Bool {
        (0..<LocalityIndex.columns).contains(firstColumn) && (0...LocalityIndex.columns).contains(width)
            && abs(firstRow) <= LocalityIndex.rows && (0...2 * LocalityIndex.rows).contains(height)
    }

    init(firstColumn: Int, width: Int, firstRow: Int, height: Int) {
        (self.firstColumn, self.width, self.firstRow, self.height) = (firstColumn, width, firstRow, height)
    }

    /// The box of the cells used (none: an empty box).
    init(columnsUsed: [Int32], rowsUsed: [Int32]) {
        guard let low = rowsUsed.min(), let high = rowsUsed.max() else {
            self.init(firstColumn: 0, width: 0, firstRow: 0, height: 0)
            return
        }
        var used = [Bool](repeating: false, count: LocalityIndex.columns)
        for cx in columnsUsed { used[Int(cx)] = true }
        let columns = used.indices.filter { used[$0] }
        // The widest gap between a used column and the next one eastwards (around the world).
        var (gapAfter, gap) = (columns[columns.count - 1], columns[0] + LocalityIndex.columns - columns[columns.count - 1])
        for (a, b) in zip(columns, columns.dropFirst()) where b - a > gap { (gapAfter, gap) = (a, b - a) }
        self.init(
            firstColumn: (gapAfter + gap) % LocalityIndex.columns, width: LocalityIndex.columns - gap + 1, firstRow: Int(low),
            height: Int(high - low) + 1)
    }

    /// The number of the cell at column `cx` (0..<columns) and row `cy`; nil outside the box.
    @inline(__always)
    func number(cx: Int, cy: Int) -> Int? {
        let dx = (cx - firstColumn + LocalityIndex.columns) % LocalityIndex.columns
        let dy = cy - firstRow
        guard dx < width, dy >= 0, dy < height else { return nil }
        return dy * width + dx
    }
}
