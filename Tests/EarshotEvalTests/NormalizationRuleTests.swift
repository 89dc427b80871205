import EarshotEval
import Testing

/// Each rule on its own, then the per-language defaults end to end.
@Suite struct NormalizationRuleTests {
    let english = TextNormalizer(configuration: .defaults(for: .english))
    let chinese = TextNormalizer(configuration: .defaults(for: .chinese))

    @Test func fullWidthFormsBecomeHalfWidth() {
        #expect(chinese.apply(.fullWidthToHalfWidth, to: "ＡＢＣ　１２３！") == "ABC 123!")
    }

    @Test func lowercaseOnlyChangesCase() {
        #expect(english.apply(.lowercase, to: "Hello World, iPhone") == "hello world, iphone")
    }

    @Test(arguments: [
        ("1,234,567 people", "1234567 people"),
        ("costs 12,500.", "costs 12500."),
        ("a, b and 1,2 or 12,34", "a, b and 1,2 or 12,34"),
        ("1,2345", "1,2345"),
    ])
    func thousandsSeparatorsAreRemovedOnlyInsideNumbers(input: String, expected: String) {
        #expect(english.apply(.removeThousandsSeparators, to: input) == expected)
    }

    @Test(arguments: [
        ("don't", "do not"), ("we're here", "we are here"), ("won't", "will not"), ("it's", "it is"),
        ("I'll go", "I will go"), ("they’ve", "they have"), ("john's car", "john's car"), ("can't", "can not"),
    ])
    func contractionsExpand(input: String, expected: String) {
        #expect(english.apply(.expandContractions, to: input) == expected)
    }

    @Test(arguments: [
        ("well,done", "well done"), ("hello.", "hello "), ("3.5 and 5%", "3.5 and 5%"), ("john's", "john's"),
        ("9:30", "9 30"), ("'quoted'", " quoted "), ("你好，世界。", "你好 世界 "), ("a<script>b", "a script b"),
    ])
    func punctuationBecomesSpaceNotNothing(input: String, expected: String) {
        #expect(english.apply(.punctuationToSpace, to: input) == expected)
    }

    @Test(arguments: [
        ("twenty three", "23"), ("one hundred and five", "105"), ("two thousand and twenty four", "2024"),
        ("twenty-first century", "21st century"), ("the third time", "the 3rd time"),
        ("three point one four", "3.14"), ("five percent", "5 percent"), ("5%", "5 percent"),
        ("nineteen ninety nine", "1999"), ("nineteen oh five", "1905"), ("nine thirty", "9 30"),
        ("nine oh five", "9 05"), ("one two three", "1 2 3"), ("a hundred dogs", "a hundred dogs"),
        ("three million two hundred thousand", "3200000"), ("twelve fifteen", "12 15"),
        ("the hundredth day", "the 100th day"), ("it is 42", "it is 42"),
    ])
    func englishNumeralsBecomeDigits(input: String, expected: String) {
        #expect(english.apply(.numerals, to: input) == expected)
    }

    @Test(arguments: [
        ("一百二十三", "123"), ("两个人", "2个人"), ("百分之五", "5%"), ("百分之十二点五", "12.5%"),
        ("二零二四年", "2024年"), ("一百零二", "102"), ("一百二", "120"), ("两万五", "25000"), ("十五", "15"),
        ("一亿两千万", "120000000"), ("一样", "一样"), ("一个", "1个"), ("三点五", "3.5"), ("三点五分", "3点5分"),
        ("三七二十一", "三七二十一"), ("万一", "万一"),
    ])
    func chineseNumeralsBecomeDigits(input: String, expected: String) {
        #expect(chinese.apply(.numerals, to: input) == expected)
    }

    @Test func britishSpellingsBecomeAmerican() {
        #expect(
            english.apply(.americanSpelling, to: "the colour of the organisation") == "the color of the organization")
    }

    @Test func fillersAreRemovedAndTheListExtends() {
        #expect(english.apply(.removeFillers, to: "um I uh think umbrella") == "I think umbrella")
        #expect(chinese.apply(.removeFillers, to: "嗯我那个觉得啊") == "我 觉得")
        var configuration = TextNormalizer.Configuration.defaults(for: .english)
        configuration.fillers.insert("like")
        #expect(TextNormalizer(configuration: configuration).normalize("it was like big") == "it was big")
    }

    @Test func chineseIsSplitPerCharacterWhileASCIIWordsStayWhole() {
        #expect(chinese.apply(.splitCJKCharacters, to: "我有3个iPhone") == " 我 有 3 个 iPhone")
        #expect(chinese.tokens("我有3个iPhone") == ["我", "有", "3", "个", "iphone"])
        #expect(chinese.tokens("我有三个iPhone 15。") == ["我", "有", "3", "个", "iphone", "15"])
    }

    @Test func englishDefaultsCombineTheRules() {
        #expect(
            english.normalize("Um, I've got TWENTY-THREE colours… it's 1,000 dollars!")
                == "i have got 23 colors it is 1000 dollars")
        #expect(english.normalize("Meet at 9:30.") == english.normalize("meet at nine thirty"))
    }

    @Test func chineseDefaultsCombineTheRules() {
        #expect(
            chinese.tokens("嗯，我买了两台ＭａｃＢｏｏｋ，花了一万二千元。") == ["我", "买", "了", "2", "台", "macbook", "花", "了", "12000", "元"])
    }

    @Test func noneOnlySplitsOnWhitespace() {
        #expect(TextNormalizer(configuration: .none).tokens("  Hello,  World  ") == ["Hello,", "World"])
    }
}
