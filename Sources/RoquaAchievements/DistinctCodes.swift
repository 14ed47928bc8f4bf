import RoquaRegions

/// How many distinct districts, provinces and countries some regions are in, in one pass.
struct DistinctUnits {
    var districts = Set<String>(), provinces = Set<String>(), countries = Set<String>()

    /// Sets grown as codes come, not `Set(regions.compactMap(…))`: that builds an array of every
    /// region's code and a set sized for all of them (50 MB for one level at a million regions,
    /// for a few hundred codes).
    init(_ regions: some Sequence<VisitedRegion>) {
        for region in regions {
            if let code = region.districtCode { districts.insert(code) }
            if let code = region.provinceCode { provinces.insert(code) }
            if let code = region.countryCode { countries.insert(code) }
        }
    }
}

extension Sequence {
    /// The distinct non-nil values of `key`, in a set grown as they come.
    func distinct<T: Hashable>(_ key: (Element) -> T?) -> Set<T> {
        var values = Set<T>()
        for element in self { if let value = key(element) { values.insert(value) } }
        return values
    }
}
