// JSON and XML text escaping live in RoquaText, which the resolver (RoquaBoundaries) needs
// without the rest of RoquaIO; every reader and writer that imports RoquaIO sees them as before.
@_exported import RoquaText
