package served

// NotTemplateFields is notTemplateFields, for the external tests.
var NotTemplateFields = notTemplateFields
