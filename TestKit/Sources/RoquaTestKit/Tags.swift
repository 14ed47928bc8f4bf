import Testing

extension Tag {
    /// Tests that take seconds each (child processes measuring memory, raster cross-checks, big
    /// files). Their suites' names end in `SlowTests`, so `scripts/test.sh --fast` skips them.
    @Tag public static var slow: Self
}
