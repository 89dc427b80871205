// earshot-bench-records: search latency of the records library over synthetic records (English and Chinese),
// through the real query path (RecordSearch over the migrated SQLite store, as the search route runs it) and,
// as the peer on the same data, a LIKE '%…%' scan of title, tags and transcript. Run by Benchmarks/records/run.
import EarshotServer
import EarshotStore
import Foundation

// MARK: Arguments

var count = 100_000
var databasePath = ""
var iterations = 5
var peerQueries = Int.max
var arguments = CommandLine.arguments.dropFirst()
while let argument = arguments.popFirst() {
    switch argument {
    case "--records": count = Int(arguments.popFirst() ?? "") ?? count
    case "--db": databasePath = arguments.popFirst() ?? ""
    case "--iterations": iterations = Int(arguments.popFirst() ?? "") ?? iterations
    case "--peer-queries": peerQueries = Int(arguments.popFirst() ?? "") ?? peerQueries
    default:
        FileHandle.standardError.write(
            Data("usage: earshot-bench-records --db PATH [--records N] [--iterations N]\n".utf8))
        exit(64)
    }
}
guard !databasePath.isEmpty else {
    FileHandle.standardError.write(Data("earshot-bench-records: --db PATH is required\n".utf8))
    exit(64)
}

// MARK: Synthetic text

/// SplitMix64: the same records on every run and machine. (The tests' copy is in Tests/EarshotTestSupport, which an
/// executable cannot depend on: it links Swift Testing.)
struct Random: RandomNumberGenerator {
    var state: UInt64
    mutating func next() -> UInt64 {
        state &+= 0x9E37_79B9_7F4A_7C15
        var z = state
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        return z ^ (z >> 31)
    }
    mutating func unit() -> Double { Double(next() >> 11) / Double(1 << 53) }
    mutating func below(_ n: Int) -> Int { Int(next() % UInt64(n)) }
}

/// Word lists with a Zipf(1) distribution, as natural language has: a few very common words, a long tail.
struct Vocabulary {
    let words: [String]
    let cumulative: [Double]

    init(_ words: [String]) {
        self.words = words
        var total = 0.0
        var cumulative: [Double] = []
        for rank in 1...words.count {
            total += 1.0 / Double(rank)
            cumulative.append(total)
        }
        self.cumulative = cumulative.map { $0 / total }
    }

    func pick(_ random: inout Random) -> String {
        let u = random.unit()
        var low = 0
        var high = cumulative.count - 1
        while low < high {
            let mid = (low + high) / 2
            if cumulative[mid] < u { low = mid + 1 } else { high = mid }
        }
        return words[low]
    }
}

let englishCommon = """
    the of and to a in is it you that he was for on are with as I his they be at one have this from or had by not \
    word but what some we can out other were all there when up use your how said an each she which do their time \
    if will way about many then them write would like so these her long make thing see him two has look more day \
    could go come did number sound no most people my over know water than call first who may down side been now \
    find any new work part take get place made live where after back little only round man year came show every \
    good me give our under name very through just form sentence great think say help low line differ turn cause \
    much mean before move right boy old too same tell does set three want air well also play small end put home \
    read hand port large spell add even land here must big high such follow act why ask men change went light \
    kind off need house picture try us again animal point mother world near build self earth father head stand \
    own page should country found answer school grow study still learn plant cover food sun four between state \
    keep eye never last let thought city tree cross farm hard start might story saw far sea draw left late run \
    meeting budget launch customer product design review quarter revenue team plan deadline release market \
    report schedule contract invoice feedback roadmap hiring interview partner support ticket server outage
    """.split(whereSeparator: { $0 == " " || $0 == "\n" }).map(String.init)
// The long tail: invented words spelled with English letter frequencies in consonant-vowel patterns, so their
// trigrams are as varied as real English ones (a small syllable inventory would make every trigram common).
let consonants = Array("ttnnssrrhhllddccmmffppggwwyybbvkjxqz")
let vowels = Array("eeeeaaaoooiiiuuy")
var random = Random(state: 42)
var tail = Set<String>()
while tail.count < 6000 {
    let length = 4 + random.below(6)
    var word = ""
    var vowel = random.below(3) == 0
    for _ in 0..<length {
        word.append(vowel ? vowels[random.below(vowels.count)] : consonants[random.below(consonants.count)])
        vowel = random.below(4) == 0 ? vowel : !vowel
    }
    tail.insert(word)
}
let english = Vocabulary(englishCommon + tail.sorted())
let hanzi = Array(
    ("的一是在不了有和人这中大为上个国我以要他时来用们生到作地于出就分对成会可主发年动同工也能下过子说产种"
        + "面而方后多定行学法所民得经十三之进着等部度家电力里如水化高自二理起小物现实加量都两体制机当使点从业本"
        + "去把性好应开它合还因由其些然前外天政四日那社义事平形相全表间样与关各重新线内数正心反你明看原又么利比"
        + "或但质气第向道命此变条只没结解问意建月公无系军很情者最立代想已通并提直题党程展五果料象员革位入常文总"
        + "次品式活设及管特件长求老头基资边流路级少图山统接知较将组见计别她手角期根论运农指几九区强放决西被干做"
        + "必战先回则任取据处队南给色光门即保治北造百规热领七海口东导器压志世金增争济阶油思术极交受联什认六共权"
        + "收证改清己美再采转更单风切打白教速花带安场身车例真务具万每目至达走积示议声报斗完类八离华名确才科张信"
        + "马节话米整空元况今集温传土许步群广石记需段研界拉林律叫且究观越织装影算低持音众书布复容儿须际商非验连"
        + "断深难近矿千周委素技备半办青省列习响约支般史感劳便团往酸历市克何除消构府称太准精值号率族维划选标写存"
        + "候毛亲快效斯院查江型眼王按格养易置派层片始却专状育厂京识适属圆包火住调满县局照参红细引听该铁价严")
        .map(String.init))
var chineseWords = Set<String>()
while chineseWords.count < 6000 {
    chineseWords.insert(hanzi[random.below(hanzi.count)] + hanzi[random.below(hanzi.count)])
}
// Real words people search for, placed in the middle of the distribution.
var chineseList = chineseWords.sorted()
let chineseTerms = ["发布会", "产品", "会议", "预算", "客户", "季度", "市场", "合同", "进度", "设计"]
for (offset, term) in chineseTerms.enumerated() { chineseList.insert(term, at: 40 + offset * 37) }
let chinese = Vocabulary(chineseList)
let tagsPool = ["work", "meeting", "idea", "call", "lecture", "interview", "工作", "会议", "灵感", "电话", "课堂", "采访"]

func sentence(_ random: inout Random, zh: Bool) -> String {
    let n = 6 + random.below(9)
    var words = (0..<n).map { _ in zh ? chinese.pick(&random) : english.pick(&random) }
    if random.below(40) == 0 { words.insert("iPhone", at: random.below(words.count)) }
    return zh ? words.joined() + "。" : words.joined(separator: " ").capitalized(with: nil) + "."
}

// MARK: Data set (built once, reused)

let store = try await SQLiteMetadataStore(
    configuration: .init(location: .file(URL(fileURLWithPath: databasePath)), schema: ServerSchema.components))
let existing = try await store.read { db in try db.scalar("SELECT COUNT(*) FROM records", as: Int.self) ?? 0 }
if existing != count {
    guard existing == 0 else {
        FileHandle.standardError.write(
            Data("\(databasePath) holds \(existing) records, not \(count); remove it\n".utf8))
        exit(1)
    }
    FileHandle.standardError.write(Data("generating \(count) records (once; cached in \(databasePath))…\n".utf8))
    let started = ContinuousClock.now
    try await store.write { db in
        try db.execute("INSERT INTO partners (id, name, secret_hash, created_at) VALUES ('bench', 'bench', 'x', 0)")
    }
    var random = Random(state: 7)
    let batch = 2000
    for start in stride(from: 0, to: count, by: batch) {
        var rows: [(String, String, [String], Int64, [(Int, String)], String)] = []
        for index in start..<min(start + batch, count) {
            let zh = index % 2 == 1
            let title = (0..<(2 + random.below(3))).map { _ in zh ? chinese.pick(&random) : english.pick(&random) }
                .joined(separator: zh ? "" : " ")
            let tags = (0..<random.below(3)).map { _ in tagsPool[random.below(tagsPool.count)] }
            var at = 0
            var sentences: [(Int, String)] = []
            for _ in 0..<(6 + random.below(7)) {
                sentences.append((at, sentence(&random, zh: zh)))
                at += 2000 + random.below(6000)
            }
            let transcript: [String: Any] = [
                "language": zh ? "zh" : "en", "duration_ms": at, "speech_ms": at,
                "segments": sentences.map { ["start_ms": $0.0, "end_ms": $0.0 + 1500, "text": $0.1, "words": []] },
            ]
            let json = String(decoding: try JSONSerialization.data(withJSONObject: transcript), as: UTF8.self)
            rows.append(
                (
                    String(format: "rec_bench%011d", index), title, Array(Set(tags)).sorted(),
                    1_700_000_000_000 + Int64(index) * 60_000, sentences, json
                ))
        }
        let batchRows = rows
        try await store.write { db in
            for (id, title, tags, time, sentences, json) in batchRows {
                let tagsJSON = String(decoding: try JSONSerialization.data(withJSONObject: tags), as: UTF8.self)
                try db.execute(
                    "INSERT INTO records (id, partner_id, user_id, file_id, title, tags, record_time, duration_ms, "
                        + "source, transcript, created_at, updated_at) "
                        + "VALUES (?, 'bench', NULL, ?, ?, ?, ?, 0, 'import', ?, 0, 0)",
                    [.text(id), .text("file_" + id), .text(title), .text(tagsJSON), .integer(time), .text(json)])
                try RecordSearch.index(
                    db, recordID: id, title: title, tags: tags, sentences: sentences.map { ($0.0, $0.1) })
            }
        }
    }
    try await store.write { db in try db.execute("INSERT INTO record_search (record_search) VALUES ('optimize')") }
    FileHandle.standardError.write(Data("generated in \(ContinuousClock.now - started)\n".utf8))
}

// MARK: Queries

/// Queries drawn from the indexed text itself (so common words come up as often as people type them): English
/// words, and Chinese substrings of 3–4 characters (indexed) or 2 characters (the short-term path).
var queryRandom = Random(state: 99)
let totalRows = try await store.read { db in try db.scalar("SELECT MAX(rowid) FROM record_search", as: Int.self) ?? 1 }
@MainActor func sampleSentence(chinese wanted: Bool) async throws -> String {
    while true {
        let rowid = 1 + queryRandom.below(totalRows)
        let body = try await store.read { db in
            try db.scalar(
                "SELECT body FROM record_search WHERE rowid = ? AND field = 'transcript'", rowid, as: String.self)
        }
        guard let body else { continue }
        let isChinese = body.unicodeScalars.contains { $0.value >= 0x4E00 && $0.value <= 0x9FFF }
        if isChinese == wanted { return body }
    }
}
@MainActor func englishWord() async throws -> String {
    while true {
        let words = try await sampleSentence(chinese: false).lowercased()
            .split(whereSeparator: { !$0.isLetter }).filter { $0.count >= 3 }
        if let word = words.randomElement(using: &queryRandom) { return String(word) }
    }
}
@MainActor func chineseSubstring(_ length: Int) async throws -> String {
    while true {
        let characters = Array(try await sampleSentence(chinese: true)).filter { $0 != "。" && $0 != " " }
        guard characters.count > length, characters.allSatisfy({ !$0.isASCII }) else { continue }
        let start = queryRandom.below(characters.count - length)
        return String(characters[start..<(start + length)])
    }
}
var queries: [String] = ["iPhone 发布会", "budget review", "customer meeting", "budg", "iphon", "发布会"]
for _ in 0..<30 { queries.append(try await englishWord()) }
for index in 0..<30 { queries.append(try await chineseSubstring(3 + index % 2)) }
for _ in 0..<5 { queries.append(try await englishWord() + " " + englishWord()) }
for _ in 0..<5 { queries.append(try await chineseSubstring(3) + " " + chineseSubstring(3)) }
var shortQueries: [String] = ["会", "发布"]
for _ in 0..<8 { shortQueries.append(try await chineseSubstring(2)) }
let scope = RecordSearch.Scope(partnerID: "bench", userID: nil)

func measure(_ query: String, runs: Int) async throws -> (latencies: [Double], hits: Int) {
    var latencies: [Double] = []
    var hits = 0
    for _ in 0..<runs {
        let started = ContinuousClock.now
        hits = try await store.read { db in
            try RecordSearch.search(db, query: query, scope: scope, limit: 20).hits.count
        }
        let elapsed = ContinuousClock.now - started
        latencies.append(Double(elapsed.components.attoseconds) / 1e15 + Double(elapsed.components.seconds) * 1000)
    }
    return (latencies, hits)
}

func like(_ query: String) async throws -> (Double, Int) {
    let terms = query.lowercased().split(separator: " ").map { "%" + $0 + "%" }
    let condition = terms.map { _ in "(title || ' ' || tags || ' ' || COALESCE(transcript, '')) LIKE ?" }
        .joined(separator: " AND ")
    let started = ContinuousClock.now
    let hits = try await store.read { db in
        try db.query(
            "SELECT id FROM records WHERE partner_id = 'bench' AND \(condition) ORDER BY record_time DESC LIMIT 20",
            terms.map { SQLValue.text($0) }
        ).count
    }
    let elapsed = ContinuousClock.now - started
    return (Double(elapsed.components.attoseconds) / 1e15 + Double(elapsed.components.seconds) * 1000, hits)
}

func percentile(_ values: [Double], _ p: Double) -> Double {
    let sorted = values.sorted()
    return sorted[min(sorted.count - 1, Int((Double(sorted.count) * p).rounded(.up)) - 1)]
}

// Warm the page cache and statement caches once.
for query in queries.prefix(5) + shortQueries.prefix(2) { _ = try await measure(query, runs: 1) }

var indexed: [Double] = []
var perQuery: [(String, Double, Int)] = []
for query in queries {
    let (latencies, hits) = try await measure(query, runs: iterations)
    indexed += latencies
    perQuery.append((query, percentile(latencies, 0.5), hits))
}
var scanned: [Double] = []
var shortPerQuery: [(String, Double)] = []
for query in shortQueries {
    let (latencies, _) = try await measure(query, runs: iterations)
    scanned += latencies
    shortPerQuery.append((query, percentile(latencies, 0.5)))
}
var peer: [Double] = []
for query in queries.prefix(peerQueries) { peer.append(try await like(query).0) }
let rows = try await store.read { db in try db.scalar("SELECT COUNT(*) FROM record_search_rows", as: Int.self) ?? 0 }
await store.close()

let slowestShort = shortPerQuery.sorted { $0.1 > $1.1 }.prefix(3).map { "\($0.0) \(String(format: "%.1f", $0.1)) ms" }
let slowest = perQuery.sorted { $0.1 > $1.1 }.prefix(3).map { "\($0.0) \(String(format: "%.1f", $0.1)) ms" }
let report: [String: Any] = [
    "records": count, "search_rows": rows, "queries": queries.count, "iterations": iterations,
    "fts_p50_ms": percentile(indexed, 0.5), "fts_p95_ms": percentile(indexed, 0.95),
    "fts_median_p95_ms": percentile(perQuery.map(\.1), 0.95),
    "short_p50_ms": percentile(scanned, 0.5), "short_p95_ms": percentile(scanned, 0.95),
    "short_queries": shortQueries.count,
    "like_p50_ms": percentile(peer, 0.5), "like_p95_ms": percentile(peer, 0.95), "like_queries": peer.count,
    "slowest": slowest, "slowest_short": slowestShort,
]
print(String(decoding: try JSONSerialization.data(withJSONObject: report, options: [.sortedKeys]), as: UTF8.self))
