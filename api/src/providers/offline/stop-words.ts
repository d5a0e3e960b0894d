/**
 * Function words and chat filler that carry no topic: pronouns, auxiliaries,
 * determiners, prepositions, question words, the words that mark an intent
 * (greetings, thanks, help), common verbs (so "I went hiking" gives the topic
 * "hiking", not "went hiking") and time words. Lowercase, straight apostrophes.
 */
export const STOP_WORDS: ReadonlySet<string> = new Set(
  `
  a about above after again against all almost also although am an and another any anybody
  anyone anything anyway are around as at be because been before being below between both but
  by can cannot could did do does doing done down during each either else enough etc even ever
  every everyone everything few for from further get gets getting go goes going gonna got had
  has have having he her here hers herself him himself his how however i if in into is it its
  itself just kind let lets like likely lot lots may maybe me might mine more most much must my
  myself neither never no nor not now of off often ok okay on once one only or other others
  otherwise our ours ourselves out over own perhaps please pretty quite rather really said same
  say says see seem seems shall she should so some somebody someone something sometimes somewhat
  soon sort still such sure than that the their theirs them themselves then there these they
  thing things think this those though through thus to too toward towards try trying under
  until up upon us very via want wanna wants was we well were what whatever when whenever where
  whether which while who whoever whom whose why will with within without would yeah yes yet you
  your yours yourself yourselves
  hi hello hey hiya howdy greetings morning afternoon evening good day night bye goodbye farewell
  later cheers thanks thank thx ty appreciate appreciated sorry apologies apologize apologise
  oops help helping assist assistance need needs stuck tell know explain show give make made
  mean means meant ask asking question wonder wondering
  went go goes going gone came come coming getting gotten making took take taking bought buy
  buying used using tried trying find found finding saw seen looking looked wanted needed liked
  loved hated reset fix fixed cancel cancelled canceled learn learned learning talk talking
  discuss discussing write wrote writing reading started starting finished kept bring brought
  send sent sending feel feeling felt heard hear hearing understand understood recommend
  suggest describe compare hoping wish yesterday today tomorrow tonight recently currently
  again already
  `
    .split(/\s+/)
    .filter((word) => word !== ""),
);
