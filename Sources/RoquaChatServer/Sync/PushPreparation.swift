import Foundation
import RoquaChatCore

/// The checks of a push that need no transaction: identifiers, sizes, digests and signatures.
/// Signatures are verified here so that the store's write lock is never held for cryptography.
enum PushPreparation {
    static func prepare(_ messages: [PushMessage], uploader: Actor, store: any ChatStore) async throws -> [PreparedPush] {
        var devices = Set<DeviceRef>()
        for message in messages {
            let author = message.senderID ?? uploader.userID
            if let deviceID = message.deviceID, message.signature != nil || author != uploader.userID {
                devices.insert(DeviceRef(userID: author, deviceID: deviceID))
            }
        }
        let keys = try await store.deviceKeys(devices)
        return try messages.map { message in
            let author = message.senderID ?? uploader.userID
            let fields = try MessageSigningFields(message, senderID: author)
            return PreparedPush(message: message, authorID: author, digest: fields.digest,
                                precheck: rejection(message, fields: fields, uploader: uploader, keys: keys))
        }
    }

    static func rejection(_ message: PushMessage, fields: MessageSigningFields, uploader: Actor,
                          keys: [DeviceRef: Data]) -> RejectionReason? {
        guard ClientIdentifier.isValid(message.localID) else { return .invalidLocalID }
        if let deviceID = message.deviceID, !ClientIdentifier.isValid(deviceID) { return .invalidDeviceID }
        if let senderID = message.senderID, !ClientIdentifier.isValid(senderID) { return .notAMember }
        guard message.content.utf8.count <= ChatLimits.maxContentBytes else { return .contentTooLarge }
        guard (fields.canonicalMetadata?.count ?? 0) <= ChatLimits.maxMetadataBytes else { return .metadataTooLarge }
        if let blobs = message.metadata?["blobs"] {
            guard case .array(let digests) = blobs, digests.count <= 16,
                  digests.allSatisfy({ $0.stringValue.map(Hex.isSHA256) ?? false }) else { return .invalidAttachment }
        }
        let relayed = fields.senderID != uploader.userID
        // The uploader's own messages are vouched for by the access token; a signature, when
        // present, must still be right. Someone else's message needs its author's signature.
        guard relayed || message.signature != nil else { return nil }
        guard let signature = message.signature, let deviceID = message.deviceID else { return .signatureRequired }
        guard let key = keys[DeviceRef(userID: fields.senderID, deviceID: deviceID)] else { return .unknownDevice }
        return DeviceSignature.verify(signature, of: fields, publicKey: key) ? nil : .badSignature
    }
}
