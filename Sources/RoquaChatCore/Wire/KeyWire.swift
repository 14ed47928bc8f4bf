/// `PUT /v1/devices/agreement-key`: the device's X25519 public key (32 bytes, base64), to which
/// group keys are wrapped. The device is the one of the access token.
public struct AgreementKeyBody: Codable, Sendable, Equatable {
    /// `agreement_key`: base64 X25519 public key.
    public var agreementKey: String
    /// Creates the value from its parts.
    public init(agreementKey: String) { self.agreementKey = agreementKey }

    enum CodingKeys: String, CodingKey {
        case agreementKey = "agreement_key"
    }
}

/// One group key epoch sealed for one device. The server stores and serves it and cannot open it.
public struct WrappedKeyEntry: Codable, Sendable, Hashable {
    /// `user_id`: the device's owner.
    public var userID: String
    /// `device_id`: the device it is sealed for.
    public var deviceID: String
    /// The key epoch.
    public var epoch: Int
    /// Base64 of the sealed key (opaque to the server).
    public var sealed: String

    /// Creates the value from its parts.
    public init(userID: String, deviceID: String, epoch: Int, sealed: String) {
        self.userID = userID
        self.deviceID = deviceID
        self.epoch = epoch
        self.sealed = sealed
    }

    enum CodingKeys: String, CodingKey {
        case userID = "user_id"
        case deviceID = "device_id"
        case epoch, sealed
    }
}

/// `PUT /v1/groups/{id}/keys` (the group's guide): keys of `epoch` for devices; and the answer
/// to `GET /v1/groups/{id}/keys` (a member: every epoch sealed for the caller's device).
public struct GroupKeysBody: Codable, Sendable, Equatable {
    /// The epoch being distributed (PUT) or the group's current epoch (GET; 0 when none).
    public var epoch: Int
    /// The sealed keys.
    public var keys: [WrappedKeyEntry]

    /// Creates the value from its parts.
    public init(epoch: Int, keys: [WrappedKeyEntry]) {
        self.epoch = epoch
        self.keys = keys
    }
}

/// An active member's device that can receive group keys.
public struct GroupDevice: Codable, Sendable, Equatable {
    /// `user_id`: the member.
    public var userID: String
    /// `device_id`: the device.
    public var deviceID: String
    /// `agreement_key`: base64 X25519 public key.
    public var agreementKey: String
    /// `key_epoch`: the newest epoch sealed for this device (nil: none yet).
    public var keyEpoch: Int?

    /// Creates the value from its parts.
    public init(userID: String, deviceID: String, agreementKey: String, keyEpoch: Int?) {
        self.userID = userID
        self.deviceID = deviceID
        self.agreementKey = agreementKey
        self.keyEpoch = keyEpoch
    }

    enum CodingKeys: String, CodingKey {
        case userID = "user_id"
        case deviceID = "device_id"
        case agreementKey = "agreement_key"
        case keyEpoch = "key_epoch"
    }
}

/// `GET /v1/groups/{id}/devices` (the group's guide): where the current epoch must be sealed to.
public struct GroupDeviceList: Codable, Sendable, Equatable {
    /// The group's current key epoch (0 when none).
    public var epoch: Int
    /// Active members' devices with an agreement key.
    public var devices: [GroupDevice]

    /// Creates the value from its parts.
    public init(epoch: Int, devices: [GroupDevice]) {
        self.epoch = epoch
        self.devices = devices
    }
}
