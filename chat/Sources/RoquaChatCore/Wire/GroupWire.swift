import Foundation

/// `POST /v1/groups` (guides and admins).
public struct CreateGroupBody: Codable, Sendable, Equatable {
    /// The group's name.
    public var name: String
    /// First day of the active window (UTC), if any.
    public var startDate: CalendarDay?
    /// Last day of the active window (UTC), if any.
    public var endDate: CalendarDay?

    /// Creates the value from its parts.
    public init(name: String, startDate: CalendarDay? = nil, endDate: CalendarDay? = nil) {
        self.name = name
        self.startDate = startDate
        self.endDate = endDate
    }

    enum CodingKeys: String, CodingKey {
        case name
        case startDate = "start_date"
        case endDate = "end_date"
    }
}

/// One member of a group. Members who do not manage the group see other members' phone numbers
/// redacted.
public struct GroupMemberInfo: Codable, Sendable, Equatable {
    /// `user_id`: the user.
    public var userID: String
    /// The phone number (E.164).
    public var phone: String
    /// Guide of the group or member.
    public var role: MemberRole
    /// When they joined.
    public var joinedAt: Date
    /// `display_name`: the name they gave themselves, if any. Chosen by them and relayed by the
    /// server: a label to show (after checking it against `DisplayName`'s rules), never an identity.
    public var displayName: String?

    /// Creates the value from its parts.
    public init(userID: String, phone: String, role: MemberRole, joinedAt: Date, displayName: String? = nil) {
        self.userID = userID
        self.phone = phone
        self.role = role
        self.joinedAt = joinedAt
        self.displayName = displayName
    }

    enum CodingKeys: String, CodingKey {
        case userID = "user_id"
        case phone, role
        case joinedAt = "joined_at"
        case displayName = "display_name"
    }
}

/// A group: `GET /v1/groups/{id}` (with members) and `GET /v1/groups` (without).
public struct GroupInfo: Codable, Sendable, Equatable {
    /// The group's id.
    public var id: String
    /// The group's name.
    public var name: String
    /// `guide_id`: the guide who created and manages the group.
    public var guideID: String
    /// First day of the active window (UTC), if any.
    public var startDate: CalendarDay?
    /// Last day of the active window (UTC), if any.
    public var endDate: CalendarDay?
    /// Today (UTC) lies within the active window; open ends count as always.
    public var isActive: Bool
    /// When it was created.
    public var createdAt: Date
    /// The sequence number of the group's newest message (0 when none).
    public var lastSeq: Int64
    /// Active members (only in group details).
    public var members: [GroupMemberInfo]?

    /// Creates the value from its parts.
    public init(
        id: String, name: String, guideID: String, startDate: CalendarDay?, endDate: CalendarDay?,
        isActive: Bool, createdAt: Date, lastSeq: Int64, members: [GroupMemberInfo]?
    ) {
        self.id = id
        self.name = name
        self.guideID = guideID
        self.startDate = startDate
        self.endDate = endDate
        self.isActive = isActive
        self.createdAt = createdAt
        self.lastSeq = lastSeq
        self.members = members
    }

    enum CodingKeys: String, CodingKey {
        case id, name
        case guideID = "guide_id"
        case startDate = "start_date"
        case endDate = "end_date"
        case isActive = "is_active"
        case createdAt = "created_at"
        case lastSeq = "last_seq"
        case members
    }
}

/// `GET /v1/groups`.
public struct GroupList: Codable, Sendable, Equatable {
    /// The groups.
    public var groups: [GroupInfo]
    /// Creates the value from its parts.
    public init(groups: [GroupInfo]) { self.groups = groups }
}

/// `POST /v1/groups/{id}/invites`: invite the person with this phone number. Only they can
/// accept it; `expires_in_hours` defaults to 168 (a week), at most 720.
public struct CreateInviteBody: Codable, Sendable, Equatable {
    /// The phone number (E.164).
    public var phone: PhoneNumber
    /// `expires_in_hours`: lifetime of the invite.
    public var expiresInHours: Int?

    /// Creates the value from its parts.
    public init(phone: PhoneNumber, expiresInHours: Int? = nil) {
        self.phone = phone
        self.expiresInHours = expiresInHours
    }

    enum CodingKeys: String, CodingKey {
        case phone
        case expiresInHours = "expires_in_hours"
    }
}

/// The code to hand to the invited person (single use).
public struct InviteInfo: Codable, Sendable, Equatable {
    /// The invite code to hand to the invited person (single use), e.g. `7KQ2-M9XD-4TPA`.
    public var code: String
    /// `group_id`: the group.
    public var groupID: String
    /// When it stops working.
    public var expiresAt: Date

    /// Creates the value from its parts.
    public init(code: String, groupID: String, expiresAt: Date) {
        self.code = code
        self.groupID = groupID
        self.expiresAt = expiresAt
    }

    enum CodingKeys: String, CodingKey {
        case code
        case groupID = "group_id"
        case expiresAt = "expires_at"
    }
}
