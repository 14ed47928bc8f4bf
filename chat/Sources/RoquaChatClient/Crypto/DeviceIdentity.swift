import Crypto
import Foundation
import RoquaChatCore
import RoquaIO

/// This home's device: its id, its Ed25519 signing key (messages, session transcripts) and its
/// X25519 agreement key (epoch secrets are sealed to it with HPKE). Created once per home, kept in a 0600
/// file, never sent anywhere but its public halves.
public struct DeviceIdentity: Sendable {
    /// `device_id`: a UUIDv7 chosen on first use.
    public let deviceID: String
    /// Signs messages.
    public let signingKey: Curve25519.Signing.PrivateKey
    /// Opens epoch secrets sealed to this device.
    public let agreementKey: Curve25519.KeyAgreement.PrivateKey

    /// The public signing key, base64 (what the server registers at sign-in).
    public var signingPublicKey: String { signingKey.publicKey.rawRepresentation.base64EncodedString() }
    /// The public agreement key, base64.
    public var agreementPublicKey: String { agreementKey.publicKey.rawRepresentation.base64EncodedString() }

    private struct Stored: Codable {
        var deviceID: String
        var signingKey: Data
        var agreementKey: Data
        enum CodingKeys: String, CodingKey {
            case deviceID = "device_id"
            case signingKey = "signing_key"
            case agreementKey = "agreement_key"
        }
    }

    /// The identity stored at `path`, created there when missing.
    /// - Throws: `ChatClientError.secretFile` when the file is unreadable, malformed or too open.
    public static func loadOrCreate(path: String) throws -> DeviceIdentity {
        if let data = try SecretFile.read(path) {
            do {
                let stored = try CheckedJSONDecoder().decode(Stored.self, from: data)
                return DeviceIdentity(
                    deviceID: stored.deviceID,
                    signingKey: try .init(rawRepresentation: stored.signingKey),
                    agreementKey: try .init(rawRepresentation: stored.agreementKey))
            } catch {
                throw ChatClientError.secretFile(path: path, reason: "not a device key file: \(error)")
            }
        }
        let identity = DeviceIdentity(deviceID: UUIDv7.make(), signingKey: .init(), agreementKey: .init())
        let stored = Stored(
            deviceID: identity.deviceID, signingKey: identity.signingKey.rawRepresentation,
            agreementKey: identity.agreementKey.rawRepresentation)
        try SecretFile.write(try JSONEncoder().encode(stored), to: path)
        return identity
    }
}

extension DeviceIdentity {
    /// This device's self-signed record for `userID` (its `created` is the time in its UUIDv7 id).
    /// - Throws: `CryptoKitError`.
    public func record(userID: String) throws -> SignedDeviceRecord {
        let hex = deviceID.replacingOccurrences(of: "-", with: "").prefix(12)
        let record = DeviceRecord(
            userID: userID, deviceID: deviceID, identityKey: signingPublicKey, agreementKey: agreementPublicKey,
            created: Int64(hex, radix: 16) ?? 0)
        return try SignedDeviceRecord.sign(record, with: signingKey)
    }
}
