// The two tools every agent here has, and the names and description the
// test may change (WEATHER_TOOL, WEATHER_DESC); each agent prints one JSON
// line of what it was told, which record and replay must agree on.
export const weatherTool = process.env.WEATHER_TOOL || "get_weather";
export const weatherDesc = process.env.WEATHER_DESC || "Returns the current weather for a city.";
export const timeDesc = "Returns the local time in a city.";
export const questions = ["What is the weather in Paris?", "And what time is it there?"];
export const system = "You are a travel assistant. Use the tools.";
export function getWeather({ city }) {
  return { city, temp_c: 18, sky: "sunny" };
}
export function getTime({ city }) {
  return { city, time: "14:05" };
}
export function done(answers) {
  console.log(JSON.stringify({ answers }));
}
