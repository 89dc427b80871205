import EarshotCore
import Foundation
import Testing

/// Atomic writes: the destination shows the old content or the new, never a mix, and no temporary file is left.
@Suite struct TemporaryFileTests {
    @Test func publishingReplacesTheDestinationAndLeavesOnlyIt() throws {
        let directory = try TemporaryDirectory()
        let destination = directory.path + "/model.bin"
        try Data("old".utf8).write(to: URL(fileURLWithPath: destination))
        let file = try TemporaryFile(path: directory.path + "/.model.bin.tmp")
        try file.write(Data("new ".utf8))
        try file.write(Data("content".utf8))
        #expect(contents(destination) == "old")  // readers see the old file until the rename
        try file.publish(to: destination)
        #expect(contents(destination) == "new content")
        #expect(directory.names == ["model.bin"])
        #expect(file.byteCount == 11)
        withExtendedLifetime(file) {}
        #expect(directory.names == ["model.bin"])  // dropping a published file leaves it
    }

    @Test func aWriteThatStopsLeavesTheOldFileAndNoTemporaryFile() throws {
        let directory = try TemporaryDirectory()
        let destination = directory.path + "/blob"
        try Data("old".utf8).write(to: URL(fileURLWithPath: destination))
        do {
            let file = try TemporaryFile(path: directory.path + "/put.tmp")
            try file.write(Data(repeating: 7, count: 100_000))
            #expect(directory.names == ["blob", "put.tmp"])
            // The writer fails here (cancelled, or its source broke) and drops the file without publishing.
        }
        #expect(directory.names == ["blob"])
        #expect(contents(destination) == "old")
    }

    @Test func aFailedRenameNamesTheDestinationAndLeavesBothFilesAsTheyWere() throws {
        let directory = try TemporaryDirectory()
        let blocked = directory.path + "/blocked"
        try FileManager.default.createDirectory(atPath: blocked + "/inside", withIntermediateDirectories: true)
        let file = try TemporaryFile(path: directory.path + "/x.tmp")
        try file.write(Data("data".utf8))
        let error = #expect(throws: SystemCallError.self) { try file.publish(to: blocked) }
        #expect(error?.call == "rename")
        #expect(error?.path == blocked)
        #expect(directory.names == ["blocked", "x.tmp"])  // still the caller's to retry or drop
        file.discard()
        #expect(directory.names == ["blocked"])
        #expect(FileManager.default.fileExists(atPath: blocked + "/inside"))
    }

    @Test func theObserverSeesExactlyTheBytesWrittenInOrder() throws {
        let directory = try TemporaryDirectory()
        let seen = ByteLog()
        let file = try TemporaryFile(path: directory.path + "/t", observer: { seen.bytes += $0 })
        let chunks = [Data("first,".utf8), Data(), Data(repeating: 0xFE, count: 70_000), Data("last".utf8)]
        for chunk in chunks { try file.write(chunk) }
        try file.publish(to: directory.path + "/done")
        let written = try Data(contentsOf: URL(fileURLWithPath: directory.path + "/done"))
        #expect(seen.bytes == Array(written))
        #expect(seen.bytes == Array(chunks.reduce(Data(), +)))
        #expect(file.byteCount == Int64(written.count))
    }

    @Test func aNameInUseIsRefusedUnlessReplacingIsAsked() throws {
        let directory = try TemporaryDirectory()
        let path = directory.path + "/.x.bin.42.tmp"
        try Data("leftover of a crashed run".utf8).write(to: URL(fileURLWithPath: path))
        let clash = #expect(throws: SystemCallError.self) { try TemporaryFile(path: path) }
        #expect(clash?.call == "open" && clash?.code == EEXIST)
        let file = try TemporaryFile(path: path, replacing: true)
        try file.write(Data("fresh".utf8))
        try file.publish(to: directory.path + "/x.bin")
        #expect(contents(directory.path + "/x.bin") == "fresh")
    }

    @Test func keptFilesBelongToTheCallerAndAdoptedFilesPublishLikeWrittenOnes() throws {
        let directory = try TemporaryDirectory()
        let written = try TemporaryFile(path: directory.path + "/upload.part")
        try written.write(Data("body".utf8))
        let kept = try written.keep()
        withExtendedLifetime(written) {}
        #expect(contents(kept) == "body")

        let adopted = try TemporaryFile(adopting: kept)
        #expect(adopted.byteCount == 4)
        let info = try adopted.seal()
        #expect(info.st_size == 4)
        try adopted.publish(to: directory.path + "/blob")
        #expect(directory.names == ["blob"])
        #expect(contents(directory.path + "/blob") == "body")

        try FileManager.default.createSymbolicLink(atPath: directory.path + "/link", withDestinationPath: kept)
        let link = #expect(throws: SystemCallError.self) { try TemporaryFile(adopting: directory.path + "/link") }
        #expect(link?.code == ELOOP)  // a symbolic link is never adopted
    }

    func contents(_ path: String) -> String? {
        FileManager.default.contents(atPath: path).map { String(decoding: $0, as: UTF8.self) }
    }
}

/// Bytes collected by an observer.
final class ByteLog {
    var bytes: [UInt8] = []
}

extension [UInt8] {
    static func += (lhs: inout [UInt8], rhs: UnsafeRawBufferPointer) { lhs.append(contentsOf: rhs) }
}
