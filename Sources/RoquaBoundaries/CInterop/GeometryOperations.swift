import CGEOS

/// Constructive operations beyond the resolver's needs: buffering and unions, used to cross-check
/// explored areas against an independent polygon computation.
extension Geometry {
    /// The area within `distance` of this geometry; a point becomes an inscribed regular polygon of
    /// 4 · `quadrantSegments` vertices, whose area falls short of the circle's by ≈ (π/(2n))²·2/3.
    package func buffer(_ distance: Double, quadrantSegments: Int) throws -> Geometry {
        try context.own(GEOSBuffer_r(context.handle, pointer, distance, Int32(clamping: quadrantSegments)), "buffer")
    }

    /// The union of this geometry's parts (overlaps dissolved), GEOS's cascaded unary union.
    package func unaryUnion() throws -> Geometry {
        try context.own(GEOSUnaryUnion_r(context.handle, pointer), "unaryUnion")
    }
}

extension GEOSContext {
    /// A geometry collection of copies of `parts`: GEOS takes ownership of what it is handed, while
    /// each Swift `Geometry` keeps (and frees) its own pointer.
    package func collection(_ parts: [Geometry]) throws -> Geometry {
        var clones: [OpaquePointer?] = []
        clones.reserveCapacity(parts.count)
        for part in parts {
            guard let clone = GEOSGeom_clone_r(handle, part.pointer) else {
                for c in clones { GEOSGeom_destroy_r(handle, c) }
                throw failure("clone")
            }
            clones.append(clone)
        }
        // On failure GEOS has already freed the clones it was given.
        let collection = clones.withUnsafeMutableBufferPointer {
            GEOSGeom_createCollection_r(handle, Int32(GEOS_GEOMETRYCOLLECTION.rawValue), $0.baseAddress, UInt32($0.count))
        }
        return try own(collection, "createCollection")
    }

    /// The union of `parts` in one cascaded pass (much faster than folding pairwise unions).
    package func union(_ parts: [Geometry]) throws -> Geometry {
        try collection(parts).unaryUnion()
    }
}
