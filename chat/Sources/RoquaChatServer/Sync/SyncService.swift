import Foundation
import Logging
import NIOCore
import RoquaChatCore
import RoquaIO

/// Push, pull and receipts.
package struct SyncService: EnvironmentService {
    package let environment: ServiceEnvironment

    package init(_ environment: ServiceEnvironment) {
        self.environment = environment
    }

    /// A push read as it streams in (`POST /v1/sync/push`): new messages stored, replays answered
    /// with their first result, what may not be stored refused one message at a time. The body
    /// goes to a `BodySpool` (memory, then an unlinked temporary file) while `PushBodySplitter`
    /// finds its messages; every message is decoded to check the whole push before anything is
    /// stored, then stored a batch at a time (a spilled body is decoded again per batch), so
    /// memory stays at one batch whatever the body's size.
    /// - Throws: `bodyTooLarge` past `limit` bytes; `malformedBody` naming the message and field;
    ///   the store's errors (the batches stored before are kept: each message is idempotent).
    package func push(streaming body: some AsyncSequence<ByteBuffer, any Error>, limit: Int, actor: Actor) async throws -> PushResult {
        let spool = BodySpool(memoryLimit: settings.pushMemoryBytes)
        var splitter = PushBodySplitter()
        var ranges: [Range<Int>] = []
        for try await buffer in body {
            guard spool.count + buffer.readableBytes <= limit else { throw ChatServerError.bodyTooLarge(limit: limit) }
            try spool.append(buffer)
            var outcome: Result<[Range<Int>], PushBodySplitter.Malformed> = .success([])
            buffer.withUnsafeReadableBytes { bytes in
                do throws(PushBodySplitter.Malformed) { outcome = .success(try splitter.feed(bytes)) } catch { outcome = .failure(error) }
            }
            switch outcome {
            case .success(let found): ranges += found
            case .failure(let error): throw ChatServerError.malformedBody(error.description)
            }
        }
        do { try splitter.finish() } catch { throw ChatServerError.malformedBody(error.description) }
        // Every message is decoded before any is stored; a body held in memory keeps its decoded
        // messages (one decoding), a spilled one is decoded again a batch at a time.
        let decoder = ChatJSON.decoder()
        var decoded: [PushMessage] = []
        for (index, range) in ranges.enumerated() {
            let message = try Self.message(index, try spool.read(range), decoder: decoder)
            if !spool.spilled { decoded.append(message) }
        }
        let now = clock.now()
        var result = PushResult(synced: [], rejected: [], syncTime: now)
        var batch: [PushMessage] = []
        var batchBytes = 0
        for (index, range) in ranges.enumerated() {
            batch.append(spool.spilled ? try Self.message(index, try spool.read(range), decoder: decoder) : decoded[index])
            batchBytes += range.count
            if batchBytes >= settings.pushBatchBytes || index == ranges.count - 1 {
                let stored = try await store(batch, actor: actor, now: now)
                result.synced += stored.synced
                result.rejected += stored.rejected
                batch.removeAll(keepingCapacity: true)
                batchBytes = 0
            }
        }
        return result
    }

    /// Message `index` of a push from its bytes.
    /// - Throws: `malformedBody` naming `messages[index]` and the field.
    static func message(_ index: Int, _ data: Data, decoder: CheckedJSONDecoder) throws -> PushMessage {
        do {
            return try decoder.decode(PushMessage.self, from: data)
        } catch let error as DecodingError {
            let detail = ChatBody.describe(error)
            let place = "messages[\(index)]"
            if detail == "not valid JSON" { throw ChatServerError.malformedBody(place + " is not valid JSON") }
            throw ChatServerError.malformedBody(
                detail.hasPrefix("the body")
                    ? place + detail.dropFirst("the body".count)
                    : place + "." + detail)
        } catch {
            throw ChatServerError.malformedBody("messages[\(index)] is not valid JSON")
        }
    }

    /// Checks, stores and records the attachments of one batch of a push.
    func store(_ messages: [PushMessage], actor: Actor, now: Date) async throws -> PushResult {
        var prepared = try await PushPreparation.prepare(messages, uploader: actor, store: store, now: now, settings: settings)
        try await PushPreparation.applyGroupQuota(&prepared, quota: settings.blobBytesPerGroup, store: store)
        let result = try await store.push(prepared, uploader: actor, now: now)
        let refused = Set(result.rejected.map(\.localID))
        var named: [String: Set<String>] = [:]
        for item in prepared where item.precheck == nil && !refused.contains(item.message.localID) {
            named[item.message.groupID, default: []].formUnion(PushPreparation.attachments(item.message))
        }
        for (group, digests) in named where !digests.isEmpty {
            try await store.recordGroupBlobs(groupID: group, digests: digests)
        }
        logger.info(
            "push",
            metadata: [
                "user": "\(actor.userID)", "synced": "\(result.synced.count)",
                "rejected": "\(result.rejected.count)",
            ])
        return result
    }

    /// One page of a group's messages after `since`, within what the actor may see, with the
    /// members' receipt marks.
    /// - Throws: `groupNotFound`, `forbidden`, `invalidField` for a negative cursor or a bad limit.
    package func pull(groupID: String, since: Int64, limit: Int?, actor: Actor) async throws -> PullResult {
        guard since >= 0 else { throw ChatServerError.invalidField(field: "since", reason: "\(since) is negative") }
        let limit = limit ?? settings.defaultPullLimit
        guard (1...settings.maxPullLimit).contains(limit) else {
            throw ChatServerError.invalidField(field: "limit", reason: "\(limit) is not within 1–\(settings.maxPullLimit)")
        }
        guard let group = try await store.group(id: groupID) else { throw ChatServerError.groupNotFound(groupID) }
        let membership = try await store.membership(groupID: groupID, userID: actor.userID)
        try Policy.require(.pull, actor: actor, group: group, membership: membership)
        let range = Policy.visibleRange(actor: actor, group: group, membership: membership)
        let after = max(since, range.after)
        // The group's log is everyone's business: a member who rejoined gets all of it, to verify it.
        var messages = try await store.messages(
            groupID: groupID, since: since, visibleAfter: range.after, upTo: range.upTo, limit: limit + 1)
        let hasMore = messages.count > limit
        if hasMore { messages.removeLast(messages.count - limit) }
        let receipts = try await store.receipts(groupID: groupID).map { mark in
            guard let cap = range.upTo else { return mark }
            var capped = mark
            capped.deliveredUpTo = min(mark.deliveredUpTo, cap)
            capped.readUpTo = min(mark.readUpTo, cap)
            return capped
        }
        return PullResult(messages: messages, receipts: receipts, nextSince: messages.last?.seq ?? after, hasMore: hasMore)
    }

    /// Raises the actor's marks; each is capped at the group's newest message.
    /// - Throws: `groupNotFound`, `forbidden`, `invalidField` for negative marks or too many groups.
    package func markReceipts(_ body: ReceiptsBody, actor: Actor) async throws -> ReceiptsResult {
        guard body.receipts.count <= ChatLimits.maxMessagesPerPush else {
            throw ChatServerError.invalidField(
                field: "receipts", reason: "\(body.receipts.count) groups; at most \(ChatLimits.maxMessagesPerPush)")
        }
        var merged: [ReceiptMark] = []
        for update in body.receipts {
            let read = update.readUpTo ?? 0
            let delivered = max(update.deliveredUpTo ?? 0, read)
            guard read >= 0, delivered >= 0 else {
                throw ChatServerError.invalidField(field: "receipts", reason: "negative mark for group '\(update.groupID)'")
            }
            guard let group = try await store.group(id: update.groupID) else { throw ChatServerError.groupNotFound(update.groupID) }
            let membership = try await store.membership(groupID: group.id, userID: actor.userID)
            try Policy.require(.markReceipts, actor: actor, group: group, membership: membership)
            merged.append(
                try await store.mergeReceipt(
                    groupID: group.id, userID: actor.userID,
                    deliveredUpTo: min(delivered, group.lastSeq),
                    readUpTo: min(read, group.lastSeq), now: clock.now()))
        }
        return ReceiptsResult(receipts: merged)
    }
}
