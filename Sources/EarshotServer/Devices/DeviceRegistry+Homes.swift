import EarshotAPI
import EarshotCore
import EarshotStore

/// Homes (seed 000): the places a user's devices are grouped in. Every user has at least one — a default home,
/// "My home", is made on first use — and exactly one current home, where newly bound devices go.
extension DeviceRegistry {
    static let defaultHomeName = "My home"
    static let maxHomes = 50

    func homes(for caller: Principal, userID requested: String?) async throws -> HomeList {
        let userID = try Self.user(of: caller, requested: requested)
        let (partnerID, at) = (caller.partnerID, now())
        return try await metadata.write { db in
            _ = try Self.ensureUser(db, partnerID: partnerID, userID: userID, at: at)
            return HomeList(homes: try Self.homes(db, partnerID: partnerID, userID: userID))
        }
    }

    func createHome(for caller: Principal, _ request: HomeCreateRequest) async throws -> Home {
        let userID = try Self.user(of: caller, requested: request.userID)
        let name = try Self.label(request.name, field: "name")
        let (partnerID, at) = (caller.partnerID, now())
        let id = Identifier.make(prefix: "home")
        return try await metadata.write { db in
            _ = try Self.ensureUser(db, partnerID: partnerID, userID: userID, at: at)
            let count =
                try db.scalar(
                    "SELECT COUNT(*) FROM homes WHERE partner_id = ? AND user_id = ?", partnerID, userID,
                    as: Int64.self) ?? 0
            guard count < Self.maxHomes else {
                throw PlatformError.conflict("a user has at most \(Self.maxHomes) homes; delete an empty one first")
            }
            try db.execute(
                "INSERT INTO homes (id, partner_id, user_id, name, created_at) VALUES (?, ?, ?, ?, ?)", id, partnerID,
                userID, name, at)
            return try Self.homes(db, partnerID: partnerID, userID: userID).first { $0.homeID == id }!
        }
    }

    func updateHome(for caller: Principal, id: String, _ request: HomeUpdateRequest) async throws -> Home {
        guard request.name != nil || request.current != nil else {
            throw PlatformError.invalidArgument("nothing to update: send name, or current: true")
        }
        if request.current == false {
            throw PlatformError.invalidArgument(
                "current: false is not a change a home can make; make another home current instead")
        }
        let name = try request.name.map { try Self.label($0, field: "name") }
        let (partnerID, user) = (caller.partnerID, caller.userID)
        return try await metadata.write { db in
            let owner = try Self.homeOwner(db, id, partnerID: partnerID, userID: user)
            if let name { try db.execute("UPDATE homes SET name = ? WHERE id = ?", name, id) }
            if request.current == true {
                try db.execute(
                    "UPDATE device_users SET current_home = ? WHERE partner_id = ? AND user_id = ?", id, partnerID,
                    owner)
            }
            return try Self.homes(db, partnerID: partnerID, userID: owner).first { $0.homeID == id }!
        }
    }

    /// Deletes an empty home; the user's oldest other home becomes current if this one was.
    ///
    /// - Throws: `CONFLICT` while devices are in it, or when it is the user's only home.
    func deleteHome(for caller: Principal, id: String) async throws {
        let (partnerID, user) = (caller.partnerID, caller.userID)
        try await metadata.write { db in
            let owner = try Self.homeOwner(db, id, partnerID: partnerID, userID: user)
            let devices = try db.scalar("SELECT COUNT(*) FROM devices WHERE home_id = ?", id, as: Int64.self) ?? 0
            guard devices == 0 else {
                throw PlatformError.conflict(
                    "home \(id) still has \(devices) device(s); move them to another home (PATCH the device's "
                        + "home_id) or remove them first")
            }
            let others = try db.query(
                "SELECT id FROM homes WHERE partner_id = ? AND user_id = ? AND id <> ? ORDER BY created_at, id",
                partnerID, owner, id
            ).map { try $0.decode("id", as: String.self) }
            guard let next = others.first else {
                throw PlatformError.conflict("home \(id) is the user's only home; a user keeps at least one")
            }
            try db.execute("DELETE FROM homes WHERE id = ?", id)
            try db.execute(
                "UPDATE device_users SET current_home = ? WHERE partner_id = ? AND user_id = ? AND current_home = ?",
                next, partnerID, owner, id)
        }
    }

    // MARK: Rows

    /// Makes the registry's row of the user and its default home when they do not exist yet; returns the user's
    /// current home (inside the caller's transaction).
    static func ensureUser(_ db: any SQLDatabase, partnerID: String, userID: String, at: Int64) throws -> String {
        if let current = try db.queryFirst(
            "SELECT current_home FROM device_users WHERE partner_id = ? AND user_id = ?", partnerID, userID)
        {
            if let home = try current.decode("current_home", as: String?.self) { return home }
        } else {
            try db.execute(
                "INSERT INTO device_users (partner_id, user_id, created_at) VALUES (?, ?, ?) ON CONFLICT DO NOTHING",
                partnerID, userID, at)
        }
        var home = try db.scalar(
            "SELECT id FROM homes WHERE partner_id = ? AND user_id = ? ORDER BY created_at, id LIMIT 1", partnerID,
            userID, as: String.self)
        if home == nil {
            let id = Identifier.make(prefix: "home")
            try db.execute(
                "INSERT INTO homes (id, partner_id, user_id, name, created_at) VALUES (?, ?, ?, ?, ?)", id, partnerID,
                userID, defaultHomeName, at)
            home = id
        }
        try db.execute(
            "UPDATE device_users SET current_home = ? WHERE partner_id = ? AND user_id = ?", home, partnerID, userID)
        return home!
    }

    /// `id` if it is a home of `userID`; otherwise `NOT_FOUND`.
    static func home(_ db: any SQLDatabase, _ id: String, partnerID: String, userID: String) throws -> String {
        _ = try homeOwner(db, id, partnerID: partnerID, userID: userID)
        return id
    }

    /// The user home `id` belongs to, if the caller (its tenant, and its user for a user token) may see it;
    /// otherwise `NOT_FOUND`, like a missing home.
    static func homeOwner(_ db: any SQLDatabase, _ id: String, partnerID: String, userID: String?) throws -> String {
        guard Identifier.isValid(id, prefix: "home"),
            let owner = try db.scalar(
                "SELECT user_id FROM homes WHERE id = ? AND partner_id = ? AND (? IS NULL OR user_id = ?)", id,
                partnerID, userID, userID, as: String.self)
        else { throw PlatformError.notFound("no home \(id.prefix(64)); GET /open/partner/homes lists them") }
        return owner
    }

    /// The user's homes, oldest first, with the current one flagged and their device counts.
    static func homes(_ db: any SQLDatabase, partnerID: String, userID: String) throws -> [Home] {
        let current = try db.scalar(
            "SELECT current_home FROM device_users WHERE partner_id = ? AND user_id = ?", partnerID, userID,
            as: String.self)
        return try db.query(
            "SELECT h.id, h.name, (SELECT COUNT(*) FROM devices d WHERE d.home_id = h.id) AS device_count "
                + "FROM homes h WHERE h.partner_id = ? AND h.user_id = ? ORDER BY h.created_at, h.id",
            partnerID, userID
        ).map { row in
            let id = try row.decode("id", as: String.self)
            return Home(
                homeID: id, name: try row.decode("name"), current: id == current,
                deviceCount: Int(try row.decode("device_count", as: Int64.self)))
        }
    }
}
