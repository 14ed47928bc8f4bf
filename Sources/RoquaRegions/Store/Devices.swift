import Foundation
import GRDB
import RoquaIO

/// The phones allowed to post positions to `roqua serve` (`roqua serve device add NAME`): each has
/// its own random token, kept only as its SHA-256, that can write fixes and nothing else.
public struct Device: Sendable, Equatable, Codable {
    public var name: String
    public var createdAt: Date
    public var revokedAt: Date?
    /// When it last posted (nil: never).
    public var lastSeen: Date?
    /// Positions it posted that were kept (retries included), and those skipped for an
    /// impossible value.
    public var fixesPosted = 0
    public var fixesSkipped = 0
}

/// A device name that cannot be used, or one that is not there.
public struct DeviceError: Error, Equatable, CustomStringConvertible, Sendable {
    public let description: String
}

extension RegionStore {
    /// Names: 1–40 letters, digits, `-`, `_`, `.` (they appear in URLs and in Basic auth).
    public static func checkDeviceName(_ name: String) throws {
        guard (1...40).contains(name.count),
            name.unicodeScalars.allSatisfy({ CharacterSet.alphanumerics.contains($0) && $0.isASCII || "-_.".unicodeScalars.contains($0) })
        else {
            throw DeviceError(description: "device name \(name.debugDescription): use 1–40 letters, digits, '-', '_' or '.'")
        }
    }

    /// Adds a device and returns its token (shown once; only its hash is kept). A revoked
    /// device's name can be used again.
    /// - Throws: `DeviceError` for a bad name or one in use.
    public func addDevice(_ name: String) throws -> String {
        try Self.checkDeviceName(name)
        var generator = SystemRandomNumberGenerator()
        let bytes = (0..<24).map { _ in UInt8.random(in: 0...255, using: &generator) }
        let token = Data(bytes).base64EncodedString().replacingOccurrences(of: "+", with: "-")
            .replacingOccurrences(of: "/", with: "_").replacingOccurrences(of: "=", with: "")
        try write { db in
            if let row = try Row.fetchOne(db, sql: "SELECT revoked_at FROM devices WHERE name = ?", arguments: [name]) {
                guard row["revoked_at"] as String? != nil else {
                    throw DeviceError(description: "a device named \(name) exists; revoke it first (roqua serve device revoke \(name))")
                }
                try db.execute(sql: "DELETE FROM devices WHERE name = ?", arguments: [name])
            }
            try db.execute(
                sql: "INSERT INTO devices(name, token_sha256, created_at) VALUES (?, ?, ?)",
                arguments: [name, Self.tokenHash(token), try StoreTime.text(Date())])
        }
        return token
    }

    /// Every device, in name order.
    public func devices() throws -> [Device] {
        try read { db in
            try Row.fetchAll(
                db,
                sql: """
                    SELECT name, created_at, revoked_at, last_seen, fixes_posted, fixes_skipped FROM devices ORDER BY name
                    """
            ).map { row in
                Device(
                    name: row["name"], createdAt: StoreTime.date(row["created_at"]) ?? .distantPast,
                    revokedAt: (row["revoked_at"] as String?).flatMap(StoreTime.date),
                    lastSeen: (row["last_seen"] as String?).flatMap(StoreTime.date),
                    fixesPosted: row["fixes_posted"], fixesSkipped: row["fixes_skipped"])
            }
        }
    }

    /// Revokes a device: its token stops working at once (a running server reads it per request).
    /// - Throws: `DeviceError` when there is no such live device.
    public func revokeDevice(_ name: String) throws {
        try write { db in
            try db.execute(
                sql: "UPDATE devices SET revoked_at = ? WHERE name = ? AND revoked_at IS NULL",
                arguments: [try StoreTime.text(Date()), name])
            guard db.changesCount == 1 else {
                throw DeviceError(description: "no device named \(name) (roqua serve device list shows them)")
            }
        }
    }

    /// The live device a token belongs to, or nil.
    package func device(forToken token: String) throws -> String? {
        guard !token.isEmpty, token.utf8.count <= 256 else { return nil }
        return try read { db in
            try String.fetchOne(
                db, sql: "SELECT name FROM devices WHERE token_sha256 = ? AND revoked_at IS NULL",
                arguments: [Self.tokenHash(token)])
        }
    }

    /// Notes that a device posted, with how many positions were kept and skipped (shown by
    /// `device list`).
    package func deviceSeen(_ name: String, posted: Int = 0, skipped: Int = 0, at date: Date = Date()) throws {
        try write { db in
            try db.execute(
                sql: """
                    UPDATE devices SET last_seen = ?, fixes_posted = fixes_posted + ?, fixes_skipped = fixes_skipped + ? WHERE name = ?
                    """, arguments: [try StoreTime.text(date), posted, skipped, name])
        }
    }

    static func tokenHash(_ token: String) -> String {
        SHA256.hex(of: Array(token.utf8))
    }
}
