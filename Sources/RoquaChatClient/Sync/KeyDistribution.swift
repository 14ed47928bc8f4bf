import Foundation
import RoquaChatCore

/// Group key epochs through the server, which only ever holds them sealed per device: every
/// member's device collects the epochs sealed for it; the guide's device seals its newest epoch
/// for every member device that lacks it (new members get the current epoch only).
struct KeyDistribution: Sendable {
    let store: ClientStore
    let api: ChatAPI
    let identity: DeviceIdentity

    /// Collects (and, as the guide, hands out) keys for `groups`; then decrypts bodies that
    /// were waiting for a key. Returns how many bodies became readable.
    func run(groups: [GroupInfo], selfID: String) async throws -> Int {
        var opened = 0
        for group in groups {
            let mine: GroupKeysBody = try await api.call(.GET, "/v1/groups/\(group.id)/keys")
            for entry in mine.keys where try store.groupKey(groupID: group.id, epoch: entry.epoch) == nil {
                let wrapped = WrappedGroupKey(groupID: group.id, epoch: entry.epoch, recipientDeviceID: entry.deviceID, sealed: entry.sealed)
                try store.saveGroupKey(try wrapped.unwrap(with: identity.agreementKey), now: Date())
            }
            if group.guideID == selfID { try await handOut(groupID: group.id) }
            opened += try store.openWaitingBodies(groupID: group.id)
        }
        return opened
    }

    /// Seals the newest epoch held here for every active member device that lacks it.
    func handOut(groupID: String) async throws {
        guard let key = try store.groupKey(groupID: groupID, epoch: nil) else { return }
        let list: GroupDeviceList = try await api.call(.GET, "/v1/groups/\(groupID)/devices")
        // Another device of the guide already moved on; its epoch wins.
        guard list.epoch <= key.epoch else { return }
        var entries: [WrappedKeyEntry] = []
        for device in list.devices where (device.keyEpoch ?? 0) < key.epoch {
            guard let publicKey = Data(base64Encoded: device.agreementKey) else { continue }
            let wrapped = try WrappedGroupKey.wrap(key, for: device.deviceID, publicKey: publicKey)
            entries.append(WrappedKeyEntry(userID: device.userID, deviceID: device.deviceID, epoch: key.epoch, sealed: wrapped.sealed))
        }
        guard !entries.isEmpty else { return }
        let _: GroupKeysBody = try await api.call(.PUT, "/v1/groups/\(groupID)/keys", body: GroupKeysBody(epoch: key.epoch, keys: entries))
    }
}
