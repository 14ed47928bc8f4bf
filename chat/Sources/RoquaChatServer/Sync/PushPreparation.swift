import Foundation
import RoquaChatCore

/// The checks of a push that need no transaction: identifiers, sizes, digests, times and
/// signatures. Signatures are verified here so that the store's write lock is never held for
/// cryptography.
enum PushPreparation {
    /// When a message's signed `sent_at` may lie: from a day (`sentAtBeforeAccount`) before its
    /// author's account was created to 5 minutes (`sentAtLead`) ahead of the server's clock.
    /// Being signed, a time outside cannot be clamped, only refused; the server keeps its own
    /// receive time beside it either way (`received_at`).
    struct TimeWindow {
        var now: Date
        var accountsCreated: [String: Date]
        var settings: ChatSettings

        func admits(_ sentAt: Date, author: String) -> Bool {
            guard sentAt.timeIntervalSince(now) <= settings.sentAtLead else { return false }
            guard let created = accountsCreated[author] else { return true }
            return created.timeIntervalSince(sentAt) <= settings.sentAtBeforeAccount
        }
    }

    static func prepare(
        _ messages: [PushMessage], uploader: Actor, store: any ChatStore, now: Date,
        settings: ChatSettings
    ) async throws -> [PreparedPush] {
        var devices = Set<DeviceRef>()
        var authors = Set<String>()
        for message in messages {
            let author = message.senderID ?? uploader.userID
            authors.insert(author)
            if let deviceID = message.deviceID, message.signature != nil || author != uploader.userID {
                devices.insert(DeviceRef(userID: author, deviceID: deviceID))
            }
        }
        let keys = try await store.deviceKeys(devices)
        var window = TimeWindow(now: now, accountsCreated: [:], settings: settings)
        // An account exists since before now, so a time less than a day old needs no look-up.
        if messages.contains(where: { now.timeIntervalSince($0.sentAt) > settings.sentAtBeforeAccount }) {
            for author in authors where ClientIdentifier.isValid(author) {
                window.accountsCreated[author] = try await store.user(id: author)?.createdAt
            }
        }
        return try messages.map { message in
            let author = message.senderID ?? uploader.userID
            let fields = try MessageSigningFields(message, senderID: author)
            return PreparedPush(
                message: message, authorID: author, digest: fields.digest,
                precheck: rejection(message, fields: fields, uploader: uploader, keys: keys, window: window))
        }
    }

    static func rejection(
        _ message: PushMessage, fields: MessageSigningFields, uploader: Actor,
        keys: [DeviceRef: Data], window: TimeWindow
    ) -> RejectionReason? {
        guard ClientIdentifier.isValid(message.localID) else { return .invalidLocalID }
        if let deviceID = message.deviceID, !ClientIdentifier.isValid(deviceID) { return .invalidDeviceID }
        if let senderID = message.senderID, !ClientIdentifier.isValid(senderID) { return .notAMember }
        guard message.content.utf8.count <= ChatLimits.maxContentBytes else { return .contentTooLarge }
        guard (fields.canonicalMetadata?.count ?? 0) <= ChatLimits.maxMetadataBytes else { return .metadataTooLarge }
        if let blobs = message.metadata?["blobs"] {
            guard case .array(let digests) = blobs, digests.count <= 16,
                digests.allSatisfy({ $0.stringValue.map(Hex.isSHA256) ?? false })
            else { return .invalidAttachment }
        }
        guard window.admits(message.sentAt, author: fields.senderID) else { return .sentAtOutOfRange }
        let relayed = fields.senderID != uploader.userID
        // The uploader's own messages are vouched for by the access token; a signature, when
        // present, must still be right. Someone else's message needs its author's signature.
        guard relayed || message.signature != nil else { return nil }
        guard let signature = message.signature, let deviceID = message.deviceID else { return .signatureRequired }
        guard let key = keys[DeviceRef(userID: fields.senderID, deviceID: deviceID)] else { return .unknownDevice }
        return DeviceSignature.verify(signature, of: fields, publicKey: key) ? nil : .badSignature
    }

    /// The attachment digests of an image or file message (`metadata.blobs`, checked above).
    static func attachments(_ message: PushMessage) -> Set<String> {
        guard message.type == .image || message.type == .file, case .array(let digests)? = message.metadata?["blobs"] else { return [] }
        return Set(digests.compactMap(\.stringValue))
    }

    /// Refuses (`quotaExceeded`) each message whose attachments would take its group past
    /// `quota` bytes, counting what earlier messages of the same push add.
    static func applyGroupQuota(_ prepared: inout [PreparedPush], quota: Int64, store: any ChatStore) async throws {
        var pending: [String: (bytes: Int64, digests: Set<String>)] = [:]
        for index in prepared.indices where prepared[index].precheck == nil {
            let group = prepared[index].message.groupID
            var counted = pending[group] ?? (0, [])
            let fresh = attachments(prepared[index].message).subtracting(counted.digests)
            guard !fresh.isEmpty else { continue }
            let (used, added) = try await store.groupBlobBytes(groupID: group, adding: fresh)
            guard used + counted.bytes + added <= quota else {
                prepared[index].precheck = .quotaExceeded
                continue
            }
            counted.bytes += added
            counted.digests.formUnion(fresh)
            pending[group] = counted
        }
    }
}
