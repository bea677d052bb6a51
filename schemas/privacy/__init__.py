"""Personal data in log text: recognisers (:mod:`.recognizers`, on checksums from :mod:`.checks`) and the
redactor that replaces what they find by typed placeholders (:mod:`.redactor`). Pure, on the bottom floor:
validation redacts with it and the quality gate checks published text with it. Import from the modules: the
package imports none of them (a package that imports its own modules forms import circles with them)."""
