// `Roqua.version` lives in RoquaText, the lowest module; whoever imports the resolver sees it as before.
@_exported import RoquaText
