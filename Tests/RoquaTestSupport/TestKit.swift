// The helpers that need nothing of the geocoder (running commands, temporary directories, a
// throwaway PostgreSQL, loopback HTTP) live in RoquaTestKit, which the tour-group package's tests
// use too; every suite that imports RoquaTestSupport sees them as before.
@_exported import RoquaTestKit
