import Testing

@testable import EarshotNotes

@Suite("Language detection")
struct LanguageDetectorTests {
    @Test(
        "Each of the 14 target languages is recognised in a typical sentence",
        arguments: [
            ("zh", "我们下周一之前需要完成新产品的发布计划。"),
            ("en", "We need to finish the launch plan for the new product before Monday."),
            ("ja", "新しい製品の発売計画を月曜日までに完成させる必要があります。"),
            ("ko", "우리는 월요일까지 신제품 출시 계획을 완료해야 합니다."),
            ("fr", "Nous devons terminer le plan de lancement du nouveau produit avant lundi."),
            ("de", "Wir müssen den Plan für die Einführung des neuen Produkts bis Montag fertigstellen."),
            ("es", "Tenemos que terminar el plan de lanzamiento del nuevo producto antes del lunes."),
            ("ru", "Нам нужно закончить план запуска нового продукта до понедельника."),
            ("it", "Dobbiamo finire il piano di lancio del nuovo prodotto prima di lunedì, non è vero?"),
            ("pt", "Nós precisamos terminar o plano de lançamento do novo produto antes de segunda-feira."),
            ("th", "เราต้องทำแผนเปิดตัวผลิตภัณฑ์ใหม่ให้เสร็จก่อนวันจันทร์"),
            ("vi", "Chúng tôi cần hoàn thành kế hoạch ra mắt sản phẩm mới trước thứ Hai."),
            ("ar", "نحن بحاجة إلى إنهاء خطة إطلاق المنتج الجديد قبل يوم الاثنين."),
            ("hi", "हमें सोमवार से पहले नए उत्पाद की लॉन्च योजना पूरी करनी होगी।"),
        ])
    func recognisesTargets(language: String, sentence: String) {
        #expect(LanguageDetector.detect(sentence) == language)
    }

    @Test("Too little text or an unknown mix is not guessed")
    func refusesToGuess() {
        #expect(LanguageDetector.detect("OK") == nil)
        #expect(LanguageDetector.detect("12345 67890 !!!") == nil)
        #expect(LanguageDetector.detect("Xylophone quartz zebra jungle") == nil)
    }
}
